/**
 * Where a run's step events are written (workflows/stepRecorder.ts): with the step's one activity
 * call when it makes one, else by a local activity; on a real dev server with real activities.
 * Whatever path they take, the log holds every event once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { CanvasRecord, Store, StoredEvent } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult, type RunSettings } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { componentOf } from '../helpers/runEvents';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
/** A worker that carries out no model call: its llmChat activity is not registered. */
let modelless: RunningWorker;
const tenantId = 'tenant-step-events';
const model = { llm_id: 'scripted@OpenAI', max_retries: 0, delay_after_error: 0 };

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'step events');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  modelless = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url, without: ['llmChat'] });
});

afterAll(async () => {
  await Promise.all([worker?.stop(), modelless?.stop()]);
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

function chainOf(n: number): Record<string, unknown> {
  const nodes: Record<string, { name: string; params?: Record<string, unknown>; downstream?: string[] }> = { begin: { name: 'Begin', downstream: ['LLM:0'] } };
  for (let i = 0; i < n; i++)
    nodes[`LLM:${i}`] = { name: 'LLM', params: { ...model, sys_prompt: `step ${i}` }, downstream: [i + 1 < n ? `LLM:${i + 1}` : 'Message:m'] };
  nodes['Message:m'] = { name: 'Message', params: { content: [`{LLM:${n - 1}@content}`] } };
  return dsl(nodes);
}

async function run(on: RunningWorker, canvas: CanvasRecord, settings: Partial<RunSettings> = {}) {
  const deps: LaunchDeps = { store, client: temporal.client, taskQueue: on.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, ...settings } };
  const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u1', session: null });
  const handle: WorkflowHandle = temporal.client.workflow.getHandle(launched.workflowId);
  return { runId: launched.runId, handle, result: (await handle.result()) as CanvasRunResult };
}

/** The run's node-level events (tokens left out), as `event:component`. */
function steps(events: StoredEvent[]): string[] {
  return events
    .filter((e) => e.sub === 0 && !e.event.startsWith('message'))
    .map((e) => (componentOf(e) !== undefined ? `${e.event}:${componentOf(e)}` : e.event));
}

/** Every event once and in order: (seq, sub) strictly increasing. */
function expectOrdered(events: StoredEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    const [a, b] = [events[i - 1]!, events[i]!];
    expect(b.seq > a.seq || (b.seq === a.seq && b.sub > a.sub), `event ${i} (${b.event}) comes after ${a.event}`).toBe(true);
  }
}

/** The run's log, checked for order, as node-level steps. */
async function loggedSteps(runId: string): Promise<string[]> {
  const events = await store.events.list(runId, null, 10_000);
  expectOrdered(events);
  return steps(events);
}

async function localActivities(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
}

const save = (title: string, canvas: Record<string, unknown>) => store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });

describe('step events', () => {
  it('go with each model call: a run of three model nodes has no local activity but the one that closes it', async () => {
    llm.whenPromptIncludes('step ', { content: 'ok' });
    const r = await run(worker, await save('three models', chainOf(3)));
    expect(r.result.status).toBe('finished');
    expect(await localActivities(r.handle)).toBe(1);
    expect(await loggedSteps(r.runId)).toEqual([
      'workflow_started',
      'node_started:begin',
      'node_finished:begin',
      ...[0, 1].flatMap((i) => [`node_started:LLM:${i}`, `node_finished:LLM:${i}`]),
      // The last model streams into the Message, which starts first (RAGFlow's partials).
      'node_started:LLM:2',
      'node_started:Message:m',
      'node_finished:LLM:2',
      'node_finished:Message:m',
      'workflow_finished',
    ]);
  });

  it('reach the log even when the call never ran: they are written with the run’s end', async () => {
    const r = await run(modelless, await save('no model', chainOf(1)), { infraRetries: 0 });
    expect(r.result.status).toBe('failed');
    // The model node's node_started went with its call, which no worker ran.
    expect(await loggedSteps(r.runId)).toEqual([
      'workflow_started',
      'node_started:begin',
      'node_finished:begin',
      'node_started:LLM:0',
      'node_started:Message:m',
      'node_finished:LLM:0',
      'node_finished:Message:m',
      'run_failed',
    ]);
  });

  it('are written before a continue-as-new: a run handed over after every step loses none', async () => {
    llm.whenPromptIncludes('step ', { content: 'ok' });
    const r = await run(worker, await save('handed over', chainOf(4)), { continueAsNewAfterEvents: 16 });
    expect(r.result.status).toBe('finished');
    expect((await loggedSteps(r.runId)).filter((n) => n.startsWith('node_started'))).toEqual([
      'node_started:begin',
      'node_started:LLM:0',
      'node_started:LLM:1',
      'node_started:LLM:2',
      'node_started:LLM:3',
      'node_started:Message:m',
    ]);
  });
});
