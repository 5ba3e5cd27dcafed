/**
 * connectOrStartTemporal with the real CLI: an external server named by TEMPORAL_ADDRESS gets the
 * product's search attributes, and the persistent `npm start` mode keeps its state under .data/.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { connectOrStartTemporal } from '../../src/io/temporal/devServer';
import { SEARCH_ATTRIBUTES } from '../../src/core/searchAttributes';
import { pickFreePort } from '../../src/io/temporal/ports';
import { skipBecause } from '../helpers/skip';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function customSearchAttributes(address: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    return Object.keys(listed.customAttributes ?? {});
  } finally {
    await connection.close();
  }
}

/** Polls until the server at `address` answers, or fails after 30 s. */
async function waitForServer(address: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await customSearchAttributes(address);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('connectOrStartTemporal', () => {
  it('uses TEMPORAL_ADDRESS without spawning, and registers the missing search attributes there', async (context) => {
    const cli = await obtainTemporalCli({ projectRoot: repoRoot, allowBuild: false });
    if (!cli) return skipBecause(context, 'no Temporal CLI on this machine');
    const port = await pickFreePort();
    const address = `127.0.0.1:${port}`;
    // A bare server, as someone else might run it: none of our search attributes.
    const external = spawn(cli.path, ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless'], { stdio: 'ignore' });
    try {
      await waitForServer(address);
      vi.stubEnv('TEMPORAL_ADDRESS', address);
      const server = await connectOrStartTemporal({ projectRoot: repoRoot, persistent: true, ui: true });
      expect(server).toMatchObject({ address, namespace: 'default', uiUrl: null });
      expect(await customSearchAttributes(address)).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
      await server.stop(); // not ours: must leave it running
      expect(external.exitCode).toBeNull();
    } finally {
      external.kill('SIGKILL');
    }
  }, 60_000);

  it('persistent mode stores state in <projectRoot>/.data, serves the UI, and is reused on its port', async (context) => {
    const cli = await obtainTemporalCli({ projectRoot: repoRoot, allowBuild: false });
    if (!cli) return skipBecause(context, 'no Temporal CLI on this machine');
    const projectRoot = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-persistent-'));
    vi.stubEnv('TEMPORAL_ADDRESS', '');
    vi.stubEnv('TEMPORAL_CLI_PATH', cli.path);
    vi.stubEnv('TEMPORAL_PORT', String(await pickFreePort()));
    vi.stubEnv('TEMPORAL_UI_PORT', String(await pickFreePort()));
    const server = await connectOrStartTemporal({ projectRoot, persistent: true, ui: true });
    try {
      expect(existsSync(path.join(projectRoot, '.data', 'temporal.db'))).toBe(true);
      expect(existsSync(path.join(projectRoot, '.data', 'temporal.log'))).toBe(true);
      expect(server.uiUrl).toBe(`http://127.0.0.1:${process.env.TEMPORAL_UI_PORT}`);
      expect((await fetch(server.uiUrl!)).status).toBe(200);

      const again = await connectOrStartTemporal({ projectRoot, persistent: true, ui: true });
      expect(again).toMatchObject({ address: server.address, uiUrl: server.uiUrl });
      await again.stop();
      expect(await customSearchAttributes(server.address)).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
    } finally {
      await server.stop();
      rmSync(projectRoot, { recursive: true, force: true });
    }
  }, 60_000);
});
