/**
 * Parallel Iteration benchmark (`npm run bench -- iteration`): the 1,000-item Iteration of
 * test/workflow/iteration.test.ts (a model call per item, scripted model) at `max_concurrency` 0
 * (the sequential Iteration), 1, 8 and 32, side by side: wall time, the history of every execution
 * (events, bytes) and the peak RSS of the process that runs the worker (with the embedded store and
 * the scripted model; the dev server is a process of its own). Then the same canvas through the
 * pure engine in process (no durability), the baseline. Prints numbers, asserts nothing.
 *   BENCH_ITERATION_ITEMS (default 1000), BENCH_ITEM_MS: the model's answer delay per item (default 0),
 *   BENCH_ITERATION_LIMITS: the max_concurrency values (default 0,1,8,32).
 */
import { launchRun } from '../api/services/runLauncher';
import { compileCanvas, runInProcess, type CallResult, type EngineCall } from '../src/core/engine';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import type { CanvasRunResult } from '../workflows/definitions';
import { dsl } from '../test/helpers/canvasKit';
import { answerResult } from '../test/helpers/engineDriver';
import { runBench, startBenchEnvironment, table } from './common';

const ITEMS = Number(process.env.BENCH_ITERATION_ITEMS ?? 1000);
const ITEM_MS = Number(process.env.BENCH_ITEM_MS ?? 0);
const LIMITS = (process.env.BENCH_ITERATION_LIMITS ?? '0,1,8,32').split(',').map(Number);

/**
 * The same Iteration with each item's body a child workflow instead (an InvokeCanvas of a canvas
 * whose model call labels the item): the shape measured against ours, `BENCH_ITERATION_CHILD=<items>`.
 */
function childBodyDsl(maxConcurrency: number, childCanvasId: string): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['Iteration:it'] },
    'Iteration:it': {
      name: 'Iteration',
      params: { items_ref: 'sys.query', max_concurrency: maxConcurrency, outputs: { labels: { ref: 'InvokeCanvas:child@content', type: 'Array<string>' } } },
      downstream: ['Message:m'],
    },
    'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['InvokeCanvas:child'] },
    'InvokeCanvas:child': {
      name: 'InvokeCanvas',
      parent_id: 'Iteration:it',
      params: { canvas_id: childCanvasId, query: 'Label item {IterationItem:item@item}.' },
    },
    'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
  });
}

const CHILD_ITEMS = Number(process.env.BENCH_ITERATION_CHILD ?? 0);

function iterationDsl(maxConcurrency: number): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['Iteration:it'] },
    'Iteration:it': {
      name: 'Iteration',
      params: { items_ref: 'sys.query', max_concurrency: maxConcurrency, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
      downstream: ['Message:m'],
    },
    'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
    'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: 'Label item {IterationItem:item@item}.' } },
    'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
  });
}

const MiB = 1024 * 1024;

async function main(): Promise<void> {
  const env = await startBenchEnvironment();
  const running = env.worker.run();
  env.llm.when((call) => {
    const m = /Label item (\d+)/.exec(String(call.body.messages[0]?.content ?? ''));
    if (!m) return undefined;
    const reply = { content: `label-${m[1]}` };
    return ITEM_MS > 0 ? { until: new Promise((r) => setTimeout(r, ITEM_MS)), then: reply } : reply;
  });
  const deps = { store: env.store, client: env.client, taskQueue: env.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS } };
  const items = Array.from({ length: ITEMS }, (_, i) => i);
  const rows: string[][] = [];
  try {
    for (const limit of LIMITS) {
      const canvas = await env.store.canvases.create({ tenantId: 'bench', title: `iteration ${limit} ${Date.now()}`, dsl: iterationDsl(limit) });
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
      const started = Date.now();
      const run = await launchRun(deps, { tenantId: 'bench', canvas, sessionId: null, query: items, inputs: null, files: [], userId: 'u', session: null });
      const result = (await env.client.workflow.getHandle(run.workflowId).result()) as CanvasRunResult;
      const wall = Date.now() - started;
      clearInterval(sampler);
      const ok = result.status === 'finished' && (JSON.parse(result.content) as string[]).every((l, i) => l === `label-${i}`);
      const executions: Array<{ events: number; bytes: number }> = [];
      for await (const e of env.client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` }))
        executions.push({ events: e.historyLength, bytes: e.historySize ?? 0 });
      const events = executions.reduce((n, e) => n + e.events, 0);
      const bytes = executions.reduce((n, e) => n + e.bytes, 0);
      rows.push([
        limit === 0 ? '0 (sequential)' : String(limit),
        `${(wall / 1000).toFixed(1)} s`,
        String(executions.length),
        String(events),
        `${(bytes / MiB).toFixed(1)} MiB`,
        `${(Math.max(...executions.map((e) => e.bytes)) / MiB).toFixed(1)} MiB`,
        `${Math.round(peak / MiB)} MiB (+${Math.round((peak - before) / MiB)})`,
        ok ? 'ok' : `WRONG (${result.status})`,
      ]);
    }
    table(
      `${ITEMS}-item Iteration on Temporal, one model call per item (scripted model, ${ITEM_MS} ms an answer)`,
      ['max_concurrency', 'wall', 'executions', 'events', 'history', 'largest execution', 'peak RSS', 'result'],
      rows,
    );
    if (CHILD_ITEMS > 0) {
      const child = await env.store.canvases.create({
        tenantId: 'bench',
        title: `label child ${Date.now()}`,
        dsl: dsl({
          begin: { name: 'Begin', downstream: ['LLM:label'] },
          'LLM:label': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: '{sys.query}' }, downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['{LLM:label@content}'] } },
        }),
      });
      const shapes: string[][] = [];
      const few = items.slice(0, CHILD_ITEMS);
      for (const limit of LIMITS.filter((l) => l > 0)) {
        for (const [shape, body] of [
          ['activity in the run (ours)', iterationDsl(limit)],
          ['child workflow per item', childBodyDsl(limit, child.id)],
        ] as const) {
          const canvas = await env.store.canvases.create({ tenantId: 'bench', title: `shape ${shape} ${limit} ${Date.now()}`, dsl: body });
          const started = Date.now();
          const run = await launchRun(deps, { tenantId: 'bench', canvas, sessionId: null, query: few, inputs: null, files: [], userId: 'u', session: null });
          const result = (await env.client.workflow.getHandle(run.workflowId).result()) as CanvasRunResult;
          const wall = Date.now() - started;
          let events = 0;
          for await (const e of env.client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) events += e.historyLength;
          shapes.push([String(limit), shape, `${(wall / 1000).toFixed(1)} s`, String(events), result.status]);
        }
      }
      table(
        `${CHILD_ITEMS}-item Iteration: an item's body as the run's own activity vs a child workflow`,
        ['max_concurrency', 'shape', 'wall', 'parent events', 'status'],
        shapes,
      );
    }
    const compiled = (limit: number) => {
      const c = compileCanvas(iterationDsl(limit));
      if (!c.ok) throw new Error('the bench canvas does not compile');
      return c.canvas;
    };
    const exec = async (call: EngineCall): Promise<CallResult> => {
      if (ITEM_MS > 0) await new Promise((r) => setTimeout(r, ITEM_MS));
      const n = /Label item (\d+)/.exec(JSON.stringify(call.call.request))?.[1];
      return { callId: call.callId, ok: true, value: answerResult(`label-${n}`) };
    };
    const local: string[][] = [];
    for (const limit of LIMITS) {
      const started = Date.now();
      const { state } = await runInProcess(compiled(limit), { runId: 'local', messageId: 'm', query: items }, exec);
      local.push([String(limit), `${Date.now() - started} ms`, state.status]);
    }
    table(`${ITEMS}-item Iteration in process (pure engine, no durability)`, ['max_concurrency', 'wall', 'status'], local);
  } finally {
    env.worker.shutdown();
    await running;
    await env.close();
  }
}

runBench(main);
