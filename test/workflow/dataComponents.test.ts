/**
 * RAGFlow's data components (StringTransform, ListOperations, DataOperations) inside canvases on
 * a real Temporal dev server: a canvas chaining all three runs to RAGFlow's answer (computed by
 * RAGFlow's own classes on the same inputs), each node's outputs reach node_finished, and a
 * component's error (RAGFlow's message) fails the run or takes the node's exception branch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { DATA_MESSAGE, DATA_QUERY, dataCanvas } from '../helpers/dataCanvas';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-data';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'data component tests');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

async function run(title: string, canvas: Record<string, unknown>, query: unknown) {
  const record = await store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
  const launched = await launchRun(deps, { tenantId, canvas: record, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
  const result = (await temporal.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
  const finished = (await store.events.list(launched.runId, null, 10_000)).filter((e) => e.event === 'node_finished');
  const node = (id: string) => finished.find((e) => e.data.component_id === id)?.data as { outputs: Record<string, unknown>; error: unknown } | undefined;
  return { result, node };
}

describe('data components on Temporal', () => {
  it('split, dedupe, sort, topN, literal_eval, append_or_update, remove_keys and a template merge', async () => {
    const { result, node } = await run('data', dataCanvas(), DATA_QUERY);
    expect(result).toMatchObject({ status: 'finished', content: DATA_MESSAGE, error: null });
    expect(node('StringTransform:split')!.outputs).toMatchObject({ result: ['ann:31', 'bo:9', 'cy:45', 'bo:9'] });
    expect(node('ListOperations:dedupe')!.outputs).toMatchObject({ result: ['ann:31', 'bo:9', 'cy:45'], first: 'ann:31', last: 'cy:45' });
    expect(node('ListOperations:head')!.outputs).toMatchObject({ result: ['cy:45', 'bo:9'], first: 'cy:45', last: 'bo:9' });
    expect(node('DataOperations:eval')!.outputs).toMatchObject({ result: [{ name: 'Ann', tags: ['x', 'y'], secret: 's3' }] });
    expect(node('DataOperations:pick')!.outputs).toMatchObject({ result: [{ name: 'Ann', tags: ['x', 'y'], top: 'cy:45' }] });
  });

  it("fails the run with RAGFlow's error, or takes the node's exception branch", async () => {
    const canvas = (extra: Record<string, unknown>) =>
      dsl({
        begin: { name: 'Begin', downstream: ['ListOperations:l'] },
        'ListOperations:l': { name: 'ListOperations', params: { query: 'sys.query', operations: 'nth', n: 1, ...extra }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['first: {ListOperations:l@first}'] } },
      });
    const failed = await run('data error', canvas({}), 'not a list');
    expect(failed.result.status).toBe('failed');
    expect(failed.result.error).toContain('The input of List Operations should be an array.');

    const caught = await run('data comment', canvas({ exception_method: 'comment', exception_default_value: 'none' }), 'not a list');
    expect(caught.result).toMatchObject({ status: 'finished', content: 'first: ' });
    // RAGFlow's `comment` method: the failure becomes the default value.
    expect(caught.node('ListOperations:l')!.outputs).toMatchObject({ result: 'none' });

    const strict = await run('data strict', canvas({ strict: true, n: 3 }), ['a', 'b']);
    expect(strict.result.error).toContain('nth requires n to be within the valid range in strict mode, got 3.');
  });
});
