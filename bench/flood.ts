/**
 * Fair share under a flood (`npm run bench -- flood`, issue 35): tenant A starts 500 runs at once
 * (each three model calls of BENCH_FLOOD_LATENCY_MS) while tenant B asks one streamed question at
 * a time over HTTP; B's time to first token is compared with B's on an idle system. Run twice on
 * fresh dev servers: with the task queue first-in first-out (the dev server's default) and with
 * Temporal's task-queue fairness on (`matching.enableFairness`, keyed by tenant as every run is
 * started: api/services/runLauncher.ts). Prints numbers; asserts nothing.
 */
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { buildApp } from '../api/app';
import { launchRun } from '../api/services/runLauncher';
import { silentLogger } from '../src/io/log';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import { DEV_SERVER_TUNING, FAIRNESS_TUNING } from '../src/io/temporal/devServer';
import { dsl } from '../test/helpers/canvasKit';
import { percentile } from './startPhases';
import { firstMessage } from './ttft';
import { chainCanvas, median, runBench, startBenchEnvironment, table, type BenchEnvironment } from './common';

const FLOOD = Number(process.env.BENCH_FLOOD_RUNS ?? 500);
const PROBES = Number(process.env.BENCH_FLOOD_PROBES ?? 7);
/** How often tenant B asks while the flood lasts. */
const PROBE_EVERY_MS = Number(process.env.BENCH_FLOOD_PROBE_EVERY_MS ?? 2000);
const LATENCY_MS = Number(process.env.BENCH_FLOOD_LATENCY_MS ?? 200);

interface Outcome {
  idle: number[];
  flooded: number[];
  floodMs: number;
  floodFailed: number;
}

async function measure(tuning: readonly string[]): Promise<Outcome> {
  const bench = await startBenchEnvironment({}, { devServerTuning: tuning });
  try {
    return await bench.worker.runUntil(() => flood(bench));
  } finally {
    await bench.close();
  }
}

async function flood(bench: BenchEnvironment): Promise<Outcome> {
  const { llm, store, client } = bench;
  {
    llm.when(() => ({ until: delay(LATENCY_MS), then: { content: 'ok, an answer' } }));
    await store.tenants.ensure('tenant-a', 'a');
    await store.tenants.ensure('tenant-b', 'b');
    await store.tenants.addApiKey('tenant-b', 'bench-key');
    const flooder = await store.canvases.create({ tenantId: 'tenant-a', title: 'flood', dsl: chainCanvas('activity', 3) });
    const asker = await store.canvases.create({
      tenantId: 'tenant-b',
      title: 'asker',
      dsl: dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'b@OpenAI', sys_prompt: 'answer' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    });
    const app = await buildApp({ store, temporal: client, taskQueue: bench.taskQueue, runSettings: DEFAULT_RUN_SETTINGS, log: silentLogger });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    progress('environment up');
    await firstToken(base, asker.id, -1); // warm-up: the bundle, connections, the canvas's first compile
    progress('warm');
    const idle: number[] = [];
    for (let i = 0; i < PROBES; i++) idle.push(await firstToken(base, asker.id, i));

    progress(`idle: ${idle.map((x) => x.toFixed(0)).join(' ')} ms; flooding`);
    const deps = { store, client, taskQueue: bench.taskQueue, settings: DEFAULT_RUN_SETTINGS };
    const started = performance.now();
    const handles = await Promise.all(
      Array.from({ length: FLOOD }, () =>
        launchRun(deps, { tenantId: 'tenant-a', canvas: flooder, sessionId: null, query: 'q', inputs: null, files: [], userId: 'a', session: null }),
      ),
    );
    progress(`${FLOOD} started in ${(performance.now() - started).toFixed(0)} ms`);
    const results = Promise.allSettled(handles.map((h) => client.workflow.getHandle(h.workflowId).result()));
    const flooded: number[] = [];
    for (let i = 0; i < PROBES; i++) flooded.push(await firstToken(base, asker.id, 100 + i));
    progress(`flooded: ${flooded.map((x) => x.toFixed(0)).join(' ')} ms`);
    const settled = await results;
    const floodMs = performance.now() - started;
    await app.close();
    return { idle, flooded, floodMs, floodFailed: settled.filter((s) => s.status === 'rejected').length };
  }
}

/** Request → the first `message` event (the answer's first token) at the client, ms. */
const firstToken = async (base: string, agentId: string, i: number): Promise<number> => (await firstMessage(base, agentId, `question ${i}`)).after;

/** A progress line on stderr (the table goes to stdout). */
const progress = (line: string) => process.stderr.write(`flood: ${line}\n`);

async function main(): Promise<void> {
  const load = os.loadavg()[0]!;
  const rows: string[][] = [];
  for (const [name, tuning] of [
    ['first-in first-out (dev server default)', DEV_SERVER_TUNING],
    ['task-queue fairness on (FAIRNESS_TUNING)', [...DEV_SERVER_TUNING, ...FAIRNESS_TUNING]],
  ] as const) {
    const o = await measure(tuning);
    const idle = median(o.idle);
    const flooded = median(o.flooded);
    rows.push([
      name,
      idle.toFixed(0),
      flooded.toFixed(0),
      `${(flooded / idle).toFixed(2)}×`,
      percentile(o.flooded, 90).toFixed(0),
      Math.max(...o.flooded).toFixed(0),
      String(o.flooded.length),
      `${(o.floodMs / 1000).toFixed(1)} s`,
      String(o.floodFailed),
    ]);
  }
  table(
    `Tenant B's time to first token while tenant A floods ${FLOOD} runs (3 model calls of ${LATENCY_MS} ms each; B idle: median of ${PROBES}; B flooded: a question every ${PROBE_EVERY_MS} ms until the flood ends; ms; load ${load.toFixed(1)} at start)`,
    ['task queue', 'B idle', 'B flooded median', 'ratio', 'p90', 'worst', 'questions', "A's flood done", 'A failed'],
    rows,
  );
}

runBench(main);
