/**
 * What the paused-runs benches share (bench/pausedRuns.ts, bench/scale.ts): a worker process
 * (`server/main.ts` in worker role) whose memory is read from /proc, and a burst of runs that each
 * pause at a UserFillUp. For benchmarks only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { openStore } from '../src/io/store/store';
import { obtainTemporalCli } from '../src/io/temporal/cli';
import { startDevServer } from '../src/io/temporal/devServer';
import { startPostgres } from '../test/helpers/postgres';
import { launchRun } from '../api/services/runLauncher';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import type { Store } from '../src/io/store/contract';
import { dsl } from '../test/helpers/canvasKit';
import { root } from './common';

/** Resident memory of a process, MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

/** `server/main.ts` with `env`, answered once it says it is running. */
export function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('agent-canvas is running')) resolve(proc);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${out.slice(-2000)}`)));
  });
}

/**
 * Starts `n` runs (50 at a time) that each pause at a UserFillUp (with `formParams` added, e.g.
 * reminders), and answers their run ids once all are paused.
 */
export async function pauseMany(store: Store, client: Client, taskQueue: string, n: number, formParams: Record<string, unknown> = {}): Promise<string[]> {
  const canvas = await store.canvases.create({
    tenantId: 'bench',
    title: `paused ${taskQueue} ${n} ${Date.now()}`,
    dsl: dsl({
      begin: { name: 'Begin', downstream: ['UserFillUp:ok'] },
      'UserFillUp:ok': {
        name: 'UserFillUp',
        params: { tips: 'Approve?', inputs: { approved: { type: 'boolean' } }, ...formParams },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['approved: {UserFillUp:ok@approved}'] } },
    }),
  });
  const deps = { store, client, taskQueue, settings: DEFAULT_RUN_SETTINGS };
  const ids: string[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, () =>
        launchRun(deps, { tenantId: 'bench', canvas, sessionId: null, query: '', inputs: null, files: [], userId: 'u', session: null }),
      ),
    );
    ids.push(...batch.map((b) => b.runId));
  }
  for (const id of ids) while ((await store.runs.getById(id))?.status !== 'paused') await new Promise((r) => setTimeout(r, 50));
  return ids;
}

/** Debian PostgreSQL, a dev server, a client and the store (tenant `bench`): what the paused benches run on. */
export async function startPausedEnvironment() {
  const pg = await startPostgres();
  if ('skipped' in pg) throw new Error(`this benchmark needs PostgreSQL: ${pg.skipped}`);
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('no Temporal CLI');
  const server = await startDevServer({ cliPath: cli.path });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const store = await openStore({ databaseUrl: pg.url });
  await store.tenants.ensure('bench', 'bench');
  return {
    pg,
    server,
    client,
    store,
    async close(): Promise<void> {
      await store.close();
      await connection.close();
      await server.stop();
      await pg.stop();
    },
  };
}
