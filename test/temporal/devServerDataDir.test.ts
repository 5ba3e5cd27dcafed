/**
 * DATA_DIR: `npm start`'s Temporal dev server keeps its SQLite state and its log in the data
 * folder the operator chose, not in `<projectRoot>/.data`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { connectOrStartTemporal, devServerFiles } from '../../src/io/temporal/devServer';
import { pickFreePort } from '../../src/io/temporal/ports';
import { skipBecause } from '../helpers/skip';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the dev server under DATA_DIR', () => {
  it('names temporal.db and temporal.log inside the data folder', () => {
    expect(devServerFiles('/srv/agent-canvas')).toEqual({ dbFile: '/srv/agent-canvas/temporal.db', logFile: '/srv/agent-canvas/temporal.log' });
  });

  it('keeps its SQLite file and log in the given data folder, nothing in <projectRoot>/.data', async (context) => {
    const cli = await obtainTemporalCli({ projectRoot: repoRoot, allowBuild: false });
    if (!cli) return skipBecause(context, 'no Temporal CLI on this machine');
    const projectRoot = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-root-'));
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-datadir-'));
    vi.stubEnv('TEMPORAL_ADDRESS', '');
    vi.stubEnv('TEMPORAL_CLI_PATH', cli.path);
    vi.stubEnv('TEMPORAL_PORT', String(await pickFreePort()));
    const server = await connectOrStartTemporal({ projectRoot, dataDir, persistent: true, ui: false });
    try {
      expect(existsSync(path.join(dataDir, 'temporal.db'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'temporal.log'))).toBe(true);
      expect(existsSync(path.join(projectRoot, '.data'))).toBe(false);
    } finally {
      await server.stop();
      rmSync(projectRoot, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
