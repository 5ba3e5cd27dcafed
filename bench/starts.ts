/**
 * Concurrent starts (`npm run bench starts`): N clients (default 200, BENCH_STREAMS) each open a
 * streaming completion on a Begin → LLM → Message canvas at the same moment, through the HTTP API
 * with the worker in the same process (the all-in-one `npm start` shape), on PGlite and — when a
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
import { DbMeter, describe, Milestones } from './startPhases';

interface StreamTiming {
  firstEvent: number | null;
  finished: number | null;
  error: string | null;
}

/** One streaming completion, read to its end; times are ms from the request. */
async function timeStream(base: string, agentId: string, i: number, onFirst?: () => void): Promise<StreamTiming> {
  const t = performance.now();
  const timing: StreamTiming = { firstEvent: null, finished: null, error: null };
  try {
    const res = await fetch(`${base}/api/v1/agents/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agentId, query: `question ${i}`, stream: true }),
    });
    if (!res.ok || !res.body) return { ...timing, error: `HTTP ${res.status}` };
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      if (timing.firstEvent === null && buf.includes('data:')) {
        timing.firstEvent = performance.now() - t;
        onFirst?.();
      }
      if (timing.finished === null && buf.includes('"event":"workflow_finished"')) timing.finished = performance.now() - t;
    }
    if (timing.finished === null) timing.error = buf.includes('"code":') ? 'stream ended with an error' : 'stream ended before workflow_finished';
  } catch (err) {
    timing.error = err instanceof Error ? err.message : String(err);
  }
  return timing;
}

/** Marks the milestones a run passes on the API side: its row, its session claim, its first read with events. */
function meterStore(store: Store, marks: Milestones): void {
  const { runs, sessions, events, canvases } = store;
  let reads = 0;
  const get = canvases.get.bind(canvases);
  canvases.get = async (tenantId, id) => {
    const key = String(reads++);
    marks.mark('0b canvas read asked', key);
    const canvas = await get(tenantId, id);
    marks.mark('0c canvas read answered', key);
    return canvas;
  };
  const create = runs.create.bind(runs);
  runs.create = async (input) => {
    marks.mark('1 run row asked', input.id);
    return create(input);
  };
  const claim = sessions.claim.bind(sessions);
  sessions.claim = async (id, runId) => {
    const won = await claim(id, runId);
    marks.mark('2 session claimed', runId);
    return won;
  };
  const list = events.list.bind(events);
  events.list = async (runId, after, limit) => {
    const rows = await list(runId, after, limit);
    if (rows.length > 0) marks.mark('7 follower read first events', runId);
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
    await Promise.all(Array.from({ length: 3 }, (_, i) => timeStream(base, agent.id, i)));
    meter.reset();
    marks.begin();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t = performance.now();
    const timings = await Promise.all(
      Array.from({ length: streams }, (_, i) => timeStream(base, agent.id, i, () => marks.mark('8 client got first event', String(i)))),
    );
    const wall = performance.now() - t;
    loop.disable();
    const first = timings.flatMap((x) => (x.firstEvent === null ? [] : [x.firstEvent]));
    const done = timings.flatMap((x) => (x.finished === null ? [] : [x.finished]));
    const errors = timings.filter((x) => x.error !== null);
    rows.push(['streams started at once', String(streams)]);
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
