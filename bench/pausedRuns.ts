/**
 * Paused runs benchmark (`npm run bench -- paused`): the memory of a worker process with 1,000
 * runs waiting at a UserFillUp versus none — with a cache as large as the SDK would size it here,
 * and with our default bound (WORKER_MAX_CACHED_WORKFLOWS=100), where paused runs leave the worker —
 * and how long
 * answering the 1,000 pauses takes. The worker is `server/main.ts` in worker role on PostgreSQL
 * (started here with the test helper), so its memory is the worker's alone. Prints numbers.
 * BENCH_PAUSED_REMIND=1: each pause also reminds after 30 days and escalates after 60
 * (UserFillUp `remind_after`, `escalate_after`): its timers live in the Temporal server.
 */
import { randomUUID } from 'node:crypto';
import { pickFreePort } from '../src/io/temporal/ports';
import { submitInputsUpdate } from '../workflows/definitions';
import { printTable, runBench } from './common';
import { pauseMany, rssMiB, startPausedEnvironment, startWorker } from './pausedWorker';

const RUNS = Number(process.env.BENCH_PAUSED_RUNS ?? 1000);
const DAY_S = 24 * 3600;
/** Reminders and an escalation far away: the pause holds timers in the server, nothing in the worker. */
const FOLLOW_UP =
  process.env.BENCH_PAUSED_REMIND === '1'
    ? { remind_after: 30 * DAY_S, remind_max: 1, remind_webhook: 'https://hooks.example.test/remind', escalate_after: 60 * DAY_S, escalate_goto: ['Message:m'] }
    : {};

/** The worker's sticky workflow cache size (the SDK's `temporal_sticky_cache_size` gauge on its /metrics), or null. */
async function cachedWorkflows(metricsPort: number): Promise<number | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('temporal_sticky_cache_size'));
    return line ? Number(line.trim().split(/\s+/).at(-1)) : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const env = await startPausedEnvironment();
  const { pg, server, client, store } = env;
  const rows: Array<[string, string]> = [];
  for (const cache of [2000, 100] as const) {
    const taskQueue = `paused-${randomUUID()}`;
    const label = cache === 100 ? 'workflow cache 100 (the default)' : `workflow cache ${cache} (≈ the SDK's default here)`;
    const metricsPort = await pickFreePort();
    const worker = await startWorker({
      METRICS_PORT: String(metricsPort),
      AGENT_CANVAS_ROLE: 'worker',
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: server.address,
      TASK_QUEUE: taskQueue,
      LOAD_EXAMPLES: 'false',
      LOG_LEVEL: 'warn',
      API_KEY: 'bench-paused-key',
      WORKER_MAX_CACHED_WORKFLOWS: String(cache),
    });
    await pauseMany(store, client, taskQueue, 20, FOLLOW_UP); // warm-up: the workflow bundle is loaded
    await new Promise((r) => setTimeout(r, 2000));
    const before = rssMiB(worker.pid!);
    const ids = await pauseMany(store, client, taskQueue, RUNS, FOLLOW_UP);
    await new Promise((r) => setTimeout(r, 2000));
    const after = rssMiB(worker.pid!);
    rows.push([`worker RSS, no paused runs → ${RUNS} paused (${label}), MiB`, `${before.toFixed(0)} → ${after.toFixed(0)}`]);
    rows.push([`worker memory per paused run (${label}), KiB`, (((after - before) * 1024) / RUNS).toFixed(0)]);
    rows.push([`workflows in the worker's cache with ${RUNS + 20} paused (${label})`, String((await cachedWorkflows(metricsPort)) ?? 'n/a')]);
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
  const kind = process.env.BENCH_PAUSED_REMIND === '1' ? ' with remind_after 30 days and escalate_after 60 days' : '';
  printTable(`agent-canvas paused-runs benchmark (${RUNS} runs waiting at a UserFillUp${kind}; worker process on PostgreSQL)`, rows);
  await env.close();
}

runBench(main);
