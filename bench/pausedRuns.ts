/**
 * Paused runs benchmark (`npm run bench -- paused`): the memory of a worker process with 1,000
 * runs waiting at a UserFillUp versus none — with a cache as large as the SDK would size it here,
 * and with our default bound (WORKER_MAX_CACHED_WORKFLOWS=100), where paused runs leave the worker —
 * and how long
 * answering the 1,000 pauses takes. The worker is `server/main.ts` in worker role on PostgreSQL
 * (started here with the test helper), so its memory is the worker's alone. Prints numbers.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { openStore } from '../src/io/store/store';
import { obtainTemporalCli } from '../src/io/temporal/cli';
import { startDevServer } from '../src/io/temporal/devServer';
import { startPostgres } from '../test/helpers/postgres';
import { submitInputsUpdate } from '../workflows/definitions';
import { printTable, root, runBench } from './common';
import { pauseMany, rssMiB, startWorker } from './pausedWorker';

const RUNS = Number(process.env.BENCH_PAUSED_RUNS ?? 1000);

async function main(): Promise<void> {
  const pg = await startPostgres();
  if ('skipped' in pg) throw new Error(`this benchmark needs PostgreSQL: ${pg.skipped}`);
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('no Temporal CLI');
  const server = await startDevServer({ cliPath: cli.path });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const store = await openStore({ databaseUrl: pg.url });
  await store.tenants.ensure('bench', 'bench');
  const rows: Array<[string, string]> = [];
  for (const cache of [2000, 100] as const) {
    const taskQueue = `paused-${randomUUID()}`;
    const label = cache === 100 ? 'workflow cache 100 (the default)' : `workflow cache ${cache} (≈ the SDK's default here)`;
    const worker = await startWorker({
      AGENT_CANVAS_ROLE: 'worker',
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: server.address,
      TASK_QUEUE: taskQueue,
      LOAD_EXAMPLES: 'false',
      LOG_LEVEL: 'warn',
      API_KEY: 'bench-paused-key',
      WORKER_MAX_CACHED_WORKFLOWS: String(cache),
    });
    await pauseMany(store, client, taskQueue, 20); // warm-up: the workflow bundle is loaded
    await new Promise((r) => setTimeout(r, 2000));
    const before = rssMiB(worker.pid!);
    const ids = await pauseMany(store, client, taskQueue, RUNS);
    await new Promise((r) => setTimeout(r, 2000));
    const after = rssMiB(worker.pid!);
    rows.push([`worker RSS, no paused runs → ${RUNS} paused (${label}), MiB`, `${before.toFixed(0)} → ${after.toFixed(0)}`]);
    rows.push([`worker memory per paused run (${label}), KiB`, (((after - before) * 1024) / RUNS).toFixed(0)]);
    const t = performance.now();
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(
        ids.slice(i, i + 50).map(async (id) => {
          const handle = client.workflow.getHandle((await store.runs.getById(id))!.workflow_id);
          await handle.executeUpdate(submitInputsUpdate, { args: [{ inputs: { approved: true } }] });
          await handle.result();
        }),
      );
    }
    rows.push([`answering ${RUNS} pauses until every run finished (${label}), s`, ((performance.now() - t) / 1000).toFixed(1)]);
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
  printTable(`agent-canvas paused-runs benchmark (${RUNS} runs waiting at a UserFillUp; worker process on PostgreSQL)`, rows);
  await store.close();
  await connection.close();
  await server.stop();
  await pg.stop();
}

runBench(main);
