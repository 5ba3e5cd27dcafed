/**
 * Worker capacity (`npm run bench streams`): N runs (BENCH_STREAMS, default 200) start at once on
 * a Begin → LLM → Message canvas whose model streams slowly: a first token at once, then one a
 * second for BENCH_STREAM_S seconds (default 30). Each run's model call starts when its activity
 * gets a worker slot and the scripted model sends the first token on arrival, so the spread of
 * the model calls' start times is the spread of first tokens. Measured twice, each on a fresh
 * dev server and store: with the SDK's default 100 activity slots and with the product's
 * (server/boot/worker.ts, WORKER_CAPACITY). Also the process's resident memory at rest and at the
 * peak with every stream open. Bounded: each configuration ends when every run has finished.
 */
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import { dsl } from '../test/helpers/canvasKit';
import { WORKER_CAPACITY } from '../server/boot/worker';
import { runBench, startBenchEnvironment, startBenchRun, table } from './common';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 200);
const STREAM_S = Number(process.env.BENCH_STREAM_S ?? 30);
const PROMPT = 'Stream slowly.';
const CANVAS = dsl({
  begin: { name: 'Begin', downstream: ['LLM:slow'] },
  'LLM:slow': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: PROMPT }, downstream: ['Message:out'] },
  'Message:out': { name: 'Message', params: { content: ['{LLM:slow@content}'] } },
});

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

async function measure(activitySlots: number): Promise<string[]> {
  // The product's worker options with this many activity slots (bench/common.ts reads BENCH_WORKER_OPTIONS).
  process.env.BENCH_WORKER_OPTIONS = JSON.stringify({ maxConcurrentActivityTaskExecutions: activitySlots });
  const bench = await startBenchEnvironment();
  try {
    const words = Array.from({ length: STREAM_S + 1 }, (_, i) => `t${i}`).join(' ');
    bench.llm.whenPromptIncludes(PROMPT, { content: words, delayMs: 1000 });
    const canvas = await bench.store.canvases.create({ tenantId: 'bench', title: `streams ${activitySlots}`, dsl: CANVAS });
    const deps = { store: bench.store, client: bench.client, taskQueue: bench.taskQueue, settings: DEFAULT_RUN_SETTINGS };
    global.gc?.();
    const rest = process.memoryUsage().rss;
    let peak = rest;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 250);
    let total = 0;
    await bench.worker.runUntil(async () => {
      const started = Date.now();
      const handles = await Promise.all(Array.from({ length: STREAMS }, () => startBenchRun(deps, canvas)));
      await Promise.all(handles.map((h) => h.result()));
      total = Date.now() - started;
    });
    clearInterval(sampler);
    const calls = bench.llm.calls.filter((c) => JSON.stringify(c.body.messages).includes(PROMPT)).map((c) => c.startedAt);
    const first = Math.min(...calls);
    const spread = calls.map((t) => t - first);
    return [
      String(activitySlots),
      String(calls.length),
      s(pct(spread, 50)),
      s(pct(spread, 95)),
      s(Math.max(...spread)),
      String(spread.filter((ms) => ms < 5_000).length),
      s(total),
      mb(rest),
      mb(peak),
      `${Math.round((peak - rest) / 1024 / Math.max(1, Math.min(activitySlots, STREAMS)))} KB`,
    ];
  } finally {
    await bench.close();
  }
}

runBench(async () => {
  const rows = [await measure(100), await measure(WORKER_CAPACITY.activities)];
  table(
    `${STREAMS} concurrent ${STREAM_S}-second model streams: first token (model call start) after the first one's, by activity slots`,
    ['activity slots', 'streams', 'p50', 'p95', 'max', 'within 5 s', 'all finished', 'RSS at rest', 'RSS peak', 'per open stream'],
    rows,
  );
});
