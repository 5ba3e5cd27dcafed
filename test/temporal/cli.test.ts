/**
 * Obtaining the Temporal CLI (with fake CLIs in temp folders, so no real build can start) and
 * running `temporal server start-dev` with the real CLI the project already has.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { obtainTemporalCli, toolsBinaryPath } from '../../src/io/temporal/cli';
import { startDevServer } from '../../src/io/temporal/devServer';
import { SEARCH_ATTRIBUTES } from '../../src/core/searchAttributes';
import { skipBecause } from '../helpers/skip';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-cli-test-'));
  tempDirs.push(dir);
  return dir;
}

/** Writes an executable that answers `--version` the way the Temporal CLI does. */
function writeFakeCli(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\necho "temporal version 0.0.0-fake (Server 0.0.0, UI 0.0.0)"\n', { mode: 0o755 });
  return file;
}

/** Isolates PATH and the machine-wide cache, so a real CLI on this machine cannot win. */
function isolateEnvironment(): { cacheHome: string; pathDir: string } {
  const cacheHome = tempDir();
  const pathDir = tempDir();
  vi.stubEnv('TEMPORAL_CLI_PATH', '');
  vi.stubEnv('XDG_CACHE_HOME', cacheHome);
  vi.stubEnv('PATH', pathDir);
  return { cacheHome, pathDir };
}

function isPortOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('obtainTemporalCli', () => {
  it('finds the binary in <projectRoot>/.tools/bin and reports source "tools"', async () => {
    isolateEnvironment();
    const projectRoot = tempDir();
    const binary = writeFakeCli(toolsBinaryPath(projectRoot));
    await expect(obtainTemporalCli({ projectRoot, allowBuild: false })).resolves.toEqual({ path: binary, source: 'tools' });
  });

  it('prefers a temporal found on PATH', async () => {
    const { pathDir } = isolateEnvironment();
    const binary = writeFakeCli(path.join(pathDir, 'temporal'));
    await expect(obtainTemporalCli({ projectRoot: tempDir(), allowBuild: false })).resolves.toEqual({ path: binary, source: 'path' });
  });

  it('copies the machine-wide cached binary into the tools folder', async () => {
    const { cacheHome } = isolateEnvironment();
    writeFakeCli(path.join(cacheHome, 'agent-canvas', 'temporal-cli-v1.5.1', 'temporal'));
    const projectRoot = tempDir();
    const found = await obtainTemporalCli({ projectRoot, allowBuild: false });
    expect(found).toEqual({ path: toolsBinaryPath(projectRoot), source: 'cache' });
    await expect(obtainTemporalCli({ projectRoot, allowBuild: false })).resolves.toMatchObject({ source: 'tools' });
  });

  it('returns null when nothing is found and building is not allowed', async () => {
    isolateEnvironment();
    await expect(obtainTemporalCli({ projectRoot: tempDir(), allowBuild: false })).resolves.toBeNull();
  });

  it('names TEMPORAL_CLI_PATH when it points at a missing file', async () => {
    vi.stubEnv('TEMPORAL_CLI_PATH', path.join(tempDir(), 'no-such-temporal'));
    await expect(obtainTemporalCli({ projectRoot: tempDir(), allowBuild: false })).rejects.toThrow(/TEMPORAL_CLI_PATH/);
  });

  it('names TEMPORAL_CLI_PATH when it points at something that is not the Temporal CLI', async () => {
    vi.stubEnv('TEMPORAL_CLI_PATH', '/bin/true');
    await expect(obtainTemporalCli({ projectRoot: tempDir(), allowBuild: false })).rejects.toThrow(/TEMPORAL_CLI_PATH/);
  });
});

describe('startDevServer', () => {
  it('starts a headless in-memory server with the search attributes, reuses it on its port, and stops it', async (context) => {
    // The global test setup has already obtained (or built) the CLI; never build here.
    const cli = await obtainTemporalCli({ projectRoot: repoRoot, allowBuild: false });
    if (!cli) return skipBecause(context, 'no Temporal CLI on this machine');

    const server = await startDevServer({ cliPath: cli.path });
    const port = Number(server.address.split(':').pop());
    try {
      expect(server).toMatchObject({ uiUrl: null, namespace: 'default' });
      const connection = await Connection.connect({ address: server.address });
      try {
        const described = await connection.workflowService.describeNamespace({ namespace: 'default' });
        expect(described.namespaceInfo?.name).toBe('default');
        const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
        for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(listed.customAttributes?.[name]).toBe(KEYWORD);
      } finally {
        await connection.close();
      }

      const reused = await startDevServer({ cliPath: cli.path, port });
      expect(reused.address).toBe(server.address);
      await reused.stop(); // a reused server belongs to someone else: stop() leaves it running
      expect(await isPortOpen(port)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(await isPortOpen(port)).toBe(false);
  }, 60_000);
});
