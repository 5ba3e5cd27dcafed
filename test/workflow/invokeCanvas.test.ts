/**
 * InvokeCanvas on a real Temporal dev server: another canvas of the tenant runs as a child
 * workflow (as a node, and as an Agent's tool), its events nested in the parent's log at the
 * invoking node's place, its answer the node's output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { componentOf } from '../helpers/runEvents';
import { expectEventsInMap } from '../helpers/runEvents';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-invoke';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'invoke tests');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

async function save(title: string, canvas: Record<string, unknown>) {
  return store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
}

async function run(canvasId: string, query: string) {
  const canvas = (await store.canvases.get(tenantId, canvasId))!;
  const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query, inputs: null, files: [], userId: 'u', session: null });
  const result = (await temporal.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
  const events = await store.events.list(launched.runId, null, 10_000);
  expectEventsInMap(events);
  return { ...launched, result, events };
}

const translator = () =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:t'] },
    'LLM:t': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-translate into French.' }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:t@content}'] } },
  });

describe('InvokeCanvas', () => {
  it('runs another canvas as a child workflow and shows its events nested at the node', async () => {
    llm.whenPromptIncludes('MARK-translate', (call) => ({ content: `FR(${String(call.body.messages.at(-1)!.content)})` }));
    const child = await save('translator', translator());
    const parent = await save(
      'parent',
      dsl({
        begin: { name: 'Begin', downstream: ['InvokeCanvas:tr'] },
        'InvokeCanvas:tr': { name: 'InvokeCanvas', params: { canvas_id: child.id, query: '{sys.query}!' }, downstream: ['Message:out'] },
        'Message:out': { name: 'Message', params: { content: ['Translated: {InvokeCanvas:tr@content}'] } },
      }),
    );
    const r = await run(parent.id, 'hello');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Translated: FR(hello!)' });
    expect(r.result.usage.calls).toBe(1);

    const nested = r.events.filter((e) => e.event === 'child_event').map((e) => e.data as { event: string; task_id: string; component_id: string });
    expect(nested.map((e) => e.event)).toEqual(expect.arrayContaining(['workflow_started', 'node_started', 'node_finished', 'workflow_finished']));
    expect(nested.every((e) => e.component_id === 'InvokeCanvas:tr')).toBe(true);
    const names = r.events.map((e) => (e.event === 'child_event' ? 'child' : `${e.event}:${componentOf(e) ?? ''}`));
    expect(names.indexOf('child')).toBeGreaterThan(names.indexOf('node_started:InvokeCanvas:tr'));
    expect(names.lastIndexOf('child')).toBeLessThan(names.indexOf('node_finished:InvokeCanvas:tr'));

    const childRun = (await store.runs.children(r.runId))[0]!;
    expect(childRun).toMatchObject({ canvas_id: child.id, status: 'finished', id: nested[0]!.task_id });
    const description = await temporal.client.workflow.getHandle(childRun.workflow_id).describe();
    expect(description.parentExecution?.workflowId).toBe(r.workflowId);
  });

  it('serves as an Agent tool', async () => {
    const child = await save('translator tool', translator());
    llm.whenPromptIncludes('MARK-lead-invoke', (call) =>
      call.body.messages.some((m) => m.role === 'tool')
        ? { content: 'Done: ' + String(call.body.messages.at(-1)!.content) }
        : { toolCalls: [{ id: 'i1', name: 'invoke_agent_0', arguments: '{"query": "good night"}' }] },
    );
    const parent = await save(
      'lead with canvas tool',
      dsl({
        begin: { name: 'Begin', downstream: ['Agent:a'] },
        'Agent:a': {
          name: 'Agent',
          params: {
            llm_id: 'm@OpenAI',
            sys_prompt: 'MARK-lead-invoke',
            tools: [{ component_name: 'InvokeCanvas', name: 'Translator', params: { canvas_id: child.id, description: 'Translates into French.' } }],
          },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
      }),
    );
    const r = await run(parent.id, 'translate good night');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Done: FR(good night)' });
  });

  it('stops a canvas that invokes itself', async () => {
    const self = await save(
      'narcissus',
      dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['x'] } } }),
    );
    await store.canvases.update(tenantId, self.id, {
      dsl: dsl({
        begin: { name: 'Begin', downstream: ['InvokeCanvas:me'] },
        'InvokeCanvas:me': { name: 'InvokeCanvas', params: { canvas_id: self.id } },
      }),
    });
    const r = await run(self.id, 'again');
    expect(r.result.status).toBe('failed');
    expect(r.result.error).toMatch(/more than 5 deep/);
  }, 120_000);
});
