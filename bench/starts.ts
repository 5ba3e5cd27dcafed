/**
 * Concurrent starts (`npm run bench starts`): N clients (default 200, BENCH_STREAMS) each open a
 * streaming completion on a Begin → LLM → Message canvas at the same moment, through the HTTP API
 * with the worker in the same process (the all-in-one `npm start` shape; the clients in a worker
 * thread, see startClients.ts), on PGlite and — when a
 * PostgreSQL server can be started (test/helpers/postgres.ts) — on PostgreSQL (BENCH_STORES=
 * pglite,postgres picks). Prints request → first SSE event and → `workflow_finished` (p50, p95,
 * max), then where a start spends its time: each milestone of a run in ms since the burst began,
 * statements per run and the most in flight at once, and the main thread's event-loop delay.
 * The model is the zero-latency scripted server, so what is measured is starting and running.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { silentLogger } from '../src/io/log';
import { buildApp } from '../api/app';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import type { Store } from '../src/io/store/contract';
import { dsl } from '../test/helpers/canvasKit';
import { startPostgres } from '../test/helpers/postgres';
import { printTable, runBench, startBenchEnvironment, type BenchEnvironmentOptions } from './common';
import { runClients } from './startClients';
import { DbMeter, describe, Milestones } from './startPhases';
import { storeDb } from '../src/io/store/storeDb';

/** Marks the milestones a run passes on the API side: its canvas read, its rows, its follower's first read with events. */
function meterStore(store: Store, marks: Milestones): void {
  const { events, canvases } = store;
  const db = storeDb(store);
  // A turn's rows (run, claim, user message, event 1) are one statement (src/io/store/turnStarts.ts).
  const query = db.query.bind(db);
  db.query = (async (sql: string, params?: unknown[]) => {
    const turn = /INSERT INTO runs/.test(sql) && /INSERT INTO run_events/.test(sql) ? String(params?.[0]) : null;
    if (turn) marks.mark('1 turn rows asked (one statement)', turn);
    const result = await query(sql, params);
    if (turn) marks.mark('2 turn rows stored', turn);
    return result;
  }) as typeof db.query;
  let reads = 0;
  const get = canvases.get.bind(canvases);
  canvases.get = async (tenantId, id) => {
    const key = String(reads++);
    marks.mark('0b canvas read asked', key);
    const canvas = await get(tenantId, id);
    marks.mark('0c canvas read answered', key);
    return canvas;
  };
  const list = events.list.bind(events);
  events.list = async (runId, after, limit) => {
    const rows = await list(runId, after, limit);
    if (rows.length > 0) marks.mark('7 follower read events from the store', runId);
    return rows;
  };
}

function meterTemporal(client: Client, marks: Milestones): void {
  const start = client.workflow.start.bind(client.workflow);
  client.workflow.start = (async (...args: Parameters<typeof start>) => {
    const runId = (args[1].args as Array<{ runId: string }>)[0]!.runId;
    marks.mark('3 workflow.start called', runId);
    const handle = await start(...args);
    marks.mark('4 workflow.start answered', runId);
    return handle;
  }) as typeof start;
}

/** Where the clients run: a worker thread (as other processes would), or the server's own thread. */
const CLIENTS = process.env.BENCH_CLIENTS === 'main' ? 'main' : 'thread';

async function benchOne(storeName: string, opts: BenchEnvironmentOptions, meter: DbMeter, streams: number): Promise<void> {
  const marks = new Milestones();
  const bench = await startBenchEnvironment(
    {},
    {
      ...opts,
      wrapDb: (db) => meter.wrap(db),
      wrapActivities: (acts) => ({
        ...acts,
        appendRunEvents: async (input) => {
          marks.mark('5 first appendRunEvents begins (worker ran the first task)', input.runId);
          await acts.appendRunEvents(input);
          marks.mark('6 first appendRunEvents done', input.runId);
        },
      }),
    },
  );
  const { llm, store, client, worker } = bench;
  llm.when(() => ({ content: 'a short answer' }));
  await store.tenants.addApiKey('bench', 'bench-key');
  meterStore(store, marks);
  meterTemporal(client, marks);
  const app = await buildApp({ store, temporal: client, taskQueue: bench.taskQueue, runSettings: DEFAULT_RUN_SETTINGS, log: silentLogger });
  let connections = 0;
  let parsed = 0;
  app.server.on('connection', () => marks.mark('0a- connection accepted', String(connections++)));
  app.server.on('request', () => marks.mark('0a- request headers parsed', String(parsed++)));
  app.addHook('onRequest', async (request) => marks.mark('0a request authenticated', request.id));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const canvas = dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { llm_id: 'b@OpenAI' }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });
  const agent = await store.canvases.create({ tenantId: 'bench', title: 'concurrent starts', dsl: canvas });
  const rows: Array<[string, string]> = [];
  await worker.runUntil(async () => {
    // A few runs first, so the worker's bundle and the connections are warm.
    await runClients({ base, agentId: agent.id, streams: 3 }, CLIENTS);
    meter.reset();
    marks.begin();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t = performance.now();
    const timings = await runClients({ base, agentId: agent.id, streams, from: 3 }, CLIENTS);
    const wall = performance.now() - t;
    timings.forEach((x, i) => x.firstEventAt !== null && marks.markAt('8 client got first event', String(i), x.firstEventAt));
    loop.disable();
    const first = timings.flatMap((x) => (x.firstEvent === null ? [] : [x.firstEvent]));
    const done = timings.flatMap((x) => (x.finished === null ? [] : [x.finished]));
    const errors = timings.filter((x) => x.error !== null);
    rows.push(['streams started at once', `${streams} (clients in ${CLIENTS === 'main' ? "the server's thread" : 'a worker thread'})`]);
    rows.push(['request → first SSE event', describe(first)]);
    rows.push(['request → workflow_finished', describe(done)]);
    rows.push(['finished / failed', `${done.length} / ${errors.length}${errors[0] ? ` (first: ${errors[0].error})` : ''}`]);
    rows.push(['wall time for all, s', (wall / 1000).toFixed(1)]);
    rows.push(['milestones, ms since the burst began', '']);
    for (const name of [...marks.byName.keys()].sort()) rows.push([`  ${name}`, describe(marks.values(name))]);
    const total = [...meter.byLabel.values()].reduce((n, s) => n + s.count, 0);
    rows.push(['statements per run (whole run)', `${(total / streams).toFixed(1)}, at most ${meter.maxInFlight} in flight`]);
    rows.push(...meter.summary(streams));
    rows.push([
      'main thread event-loop delay',
      `p50 ${(loop.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms`,
    ]);
  });
  await app.close();
  printTable(`agent-canvas concurrent starts (all-in-one, ${storeName}, zero-latency scripted model)`, rows);
  await bench.close();
}

async function main(): Promise<void> {
  const streams = Number(process.env.BENCH_STREAMS ?? 200);
  const stores = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').map((s) => s.trim());
  if (stores.includes('pglite')) await benchOne('embedded PGlite', {}, new DbMeter(), streams);
  if (stores.includes('postgres')) {
    const pg = await startPostgres();
    if ('skipped' in pg) process.stdout.write(`\nPostgreSQL variant skipped: ${pg.skipped}\n`);
    else {
      try {
        await benchOne('PostgreSQL', { databaseUrl: pg.url }, new DbMeter(), streams);
      } finally {
        await pg.stop();
      }
    }
  }
}

runBench(main);
