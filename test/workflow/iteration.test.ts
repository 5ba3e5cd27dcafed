/**
 * A 1,000-item Iteration on a real Temporal dev server with the scripted model: every item's
 * body runs (a model call each), the results are collected in order, and each execution's history
 * stays under half of Temporal's limits (51,200 events, 50 MB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

const ITEMS = 1000;
let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-iteration';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'iteration tests');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 5000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

describe('a large Iteration', () => {
  it(`runs ${ITEMS} items with a model call each within Temporal's history limits`, async () => {
    llm.when((call) => {
      const m = /Label item (\d+)/.exec(String(call.body.messages[0]?.content ?? ''));
      return m ? { content: `label-${m[1]}` } : undefined;
    });
    const canvas = await store.canvases.create({
      tenantId,
      title: `iteration ${Date.now()}`,
      dsl: dsl({
        begin: { name: 'Begin', downstream: ['Iteration:it'] },
        'Iteration:it': {
          name: 'Iteration',
          params: { items_ref: 'sys.query', outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
          downstream: ['Message:m'],
        },
        'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
        'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: 'Label item {IterationItem:item@item}.' } },
        'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
      }),
    });
    const items = Array.from({ length: ITEMS }, (_, i) => i);
    const started = Date.now();
    const run = await launchRun(deps, { tenantId, canvas, sessionId: null, query: items, inputs: null, files: [], userId: 'u', session: null });
    const handle = temporal.client.workflow.getHandle(run.workflowId);
    const result = (await handle.result()) as CanvasRunResult;
    const wallMs = Date.now() - started;
    expect(result.status).toBe('finished');
    expect(JSON.parse(result.content)).toEqual(items.map((i) => `label-${i}`));

    const executions: Array<{ events: number; bytes: number }> = [];
    for await (const e of temporal.client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` }))
      executions.push({ events: e.historyLength, bytes: e.historySize ?? 0 });
    process.stderr.write(`[iteration] ${ITEMS} items: ${(wallMs / 1000).toFixed(1)} s wall, executions ${JSON.stringify(executions)}\n`);
    for (const e of executions) {
      expect(e.events).toBeLessThan(51_200 / 2);
      expect(e.bytes).toBeLessThan(25 * 1024 * 1024);
    }
  }, 600_000);
});
