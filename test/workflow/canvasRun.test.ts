/**
 * The run workflow on a real Temporal dev server, with real activities, a real store (PGlite)
 * and the scripted OpenAI-compatible model over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { CanvasRecord, Store } from '../../src/io/store/contract';
import { cancelSignal, DEFAULT_RUN_SETTINGS, progressQuery, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { componentOf } from '../helpers/runEvents';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-wf';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'workflow tests');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

async function saveCanvas(title: string, canvas: Record<string, unknown>): Promise<CanvasRecord> {
  return store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
}

async function run(canvas: CanvasRecord, query: string) {
  const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
  const handle = temporal.client.workflow.getHandle(launched.workflowId);
  return { ...launched, handle, result: () => handle.result() as Promise<CanvasRunResult> };
}

async function eventNames(runId: string): Promise<string[]> {
  const events = await store.events.list(runId, null, 10_000);
  return events.map((e) => (componentOf(e) !== undefined ? `${e.event}:${componentOf(e)}` : e.event));
}

const model = { llm_id: 'scripted@OpenAI' };

describe('the canvasRun workflow', () => {
  it('runs Categorize into one of two LLM branches and streams the answer into a Message', async () => {
    llm.whenPromptIncludes('classify user questions', { content: 'refund' });
    llm.whenPromptIncludes('You handle refunds', { content: 'Your refund is on its way.', delayMs: 5 });
    const canvas = await saveCanvas(
      'categorize',
      dsl({
        begin: { name: 'Begin', downstream: ['Categorize:c'] },
        'Categorize:c': {
          name: 'Categorize',
          params: {
            ...model,
            category_description: { refund: { description: 'money back', to: ['LLM:refund'] }, other: { description: 'anything else', to: ['LLM:other'] } },
          },
          downstream: ['LLM:refund', 'LLM:other'],
        },
        'LLM:refund': { name: 'LLM', params: { ...model, sys_prompt: 'You handle refunds.' }, downstream: ['Message:m'] },
        'LLM:other': { name: 'LLM', params: { ...model, sys_prompt: 'You handle the rest.' }, downstream: ['Message:o'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:refund@content}'] } },
        'Message:o': { name: 'Message', params: { content: ['{LLM:other@content}'] } },
      }),
    );
    const r = await run(canvas, 'I want my money back');
    const result = await r.result();
    expect(result).toMatchObject({ status: 'finished', content: 'Your refund is on its way.', error: null });
    expect(result.usage.calls).toBe(2);
    const names = await eventNames(r.runId);
    expect(names.filter((n) => !n.startsWith('message') || n === 'message_end')).toEqual([
      'workflow_started',
      'node_started:begin',
      'node_finished:begin',
      'node_started:Categorize:c',
      'node_finished:Categorize:c',
      'node_started:LLM:refund',
      'node_started:Message:m',
      'message_end',
      'node_finished:LLM:refund',
      'node_finished:Message:m',
      'workflow_finished',
    ]);
    const tokens = (await store.events.list(r.runId, null, 10_000)).filter((e) => e.event === 'message');
    expect(tokens.map((e) => e.data.content).join('')).toBe('Your refund is on its way.');
    expect(tokens.length).toBeGreaterThan(1);
    expect(await store.runs.get(tenantId, r.runId)).toMatchObject({ status: 'finished' });
  });

  it('cancels a streaming model call within two seconds and starts nothing after it', async () => {
    llm.whenPromptIncludes('Talk forever', { hang: true, content: 'I will never stop ' });
    const canvas = await saveCanvas(
      'cancel',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:long'] },
        'LLM:long': { name: 'LLM', params: { ...model, sys_prompt: 'Talk forever.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:long@content}'] }, downstream: ['LLM:after'] },
        'LLM:after': { name: 'LLM', params: { ...model, sys_prompt: 'Never called.' } },
      }),
    );
    const callsBefore = llm.calls.length;
    const r = await run(canvas, 'go');
    await llm.waitForCalls(callsBefore + 1);
    const progress = await r.handle.query(progressQuery);
    expect(progress.status).toBe('running');
    const sentAt = Date.now();
    await r.handle.signal(cancelSignal, 'test cancels');
    await llm.waitForAbort(5000);
    const abortedAfter = Date.now() - sentAt;
    expect(abortedAfter).toBeLessThan(2000);
    const result = await r.result();
    expect(result.status).toBe('canceled');
    expect(llm.calls.length).toBe(callsBefore + 1);
    const names = await eventNames(r.runId);
    expect(names.slice(-3)).toEqual(['node_finished:LLM:long', 'run_canceled', 'workflow_finished']);
    expect(names).not.toContain('node_started:LLM:after');
    expect(await store.runs.get(tenantId, r.runId)).toMatchObject({ status: 'canceled' });
  });

  it('records a cancel signalled twice once, with the first reason', async () => {
    llm.whenPromptIncludes('Ramble on', { hang: true, content: 'and on ' });
    const canvas = await saveCanvas(
      'cancel-twice',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:long'] },
        'LLM:long': { name: 'LLM', params: { ...model, sys_prompt: 'Ramble on.' } },
      }),
    );
    const callsBefore = llm.calls.length;
    const r = await run(canvas, 'go');
    await llm.waitForCalls(callsBefore + 1);
    // The run ends only once the model call has acknowledged the first cancel (a heartbeat away),
    // so the second signal reaches a run that is still stopping.
    await r.handle.signal(cancelSignal, 'first reason');
    await r.handle.signal(cancelSignal, 'second reason');
    const result = await r.result();
    expect(result.status).toBe('canceled');
    const history = (await r.handle.fetchHistory()).events ?? [];
    expect(history.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === cancelSignal.name)).toHaveLength(2);
    const canceled = (await store.events.list(r.runId, null, 10_000)).filter((e) => e.event === 'run_canceled');
    expect(canceled.map((e) => e.data.reason)).toEqual(['first reason']);
  });

  it('retries a failing model call as max_retries allows, then succeeds', async () => {
    let n = 0;
    llm.whenPromptIncludes('Flaky model', () => (++n <= 2 ? { status: 500, message: 'overloaded' } : { content: 'third time lucky' }));
    const canvas = await saveCanvas(
      'retry',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:flaky'] },
        'LLM:flaky': { name: 'LLM', params: { ...model, sys_prompt: 'Flaky model.', max_retries: 2, delay_after_error: 0.1 }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:flaky@content}'] } },
      }),
    );
    const r = await run(canvas, 'hi');
    const result = await r.result();
    expect(result).toMatchObject({ status: 'finished', content: 'third time lucky' });
    expect(n).toBe(3);
  });

  it('fails the node once max_retries is spent and reports the provider error', async () => {
    let n = 0;
    llm.whenPromptIncludes('Broken model', () => (++n, { status: 503, message: 'down for maintenance' }));
    const canvas = await saveCanvas(
      'retry-fail',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:broken'] },
        'LLM:broken': { name: 'LLM', params: { ...model, sys_prompt: 'Broken model.', max_retries: 1, delay_after_error: 0.1 }, downstream: [] },
      }),
    );
    const r = await run(canvas, 'hi');
    const result = await r.result();
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/503/);
    expect(n).toBe(2);
    const names = await eventNames(r.runId);
    expect(names.at(-1)).toBe('run_failed');
  });

  it('does not retry a request the provider rejects as malformed', async () => {
    let n = 0;
    llm.whenPromptIncludes('Bad request model', () => (++n, { status: 400, message: 'unknown parameter' }));
    const canvas = await saveCanvas(
      'bad-request',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:bad'] },
        'LLM:bad': { name: 'LLM', params: { ...model, sys_prompt: 'Bad request model.', max_retries: 3, delay_after_error: 0.1 } },
      }),
    );
    const r = await run(canvas, 'hi');
    expect((await r.result()).status).toBe('failed');
    expect(n).toBe(1);
  });

  it('runs at most five calls of a batch at once', async () => {
    llm.whenPromptIncludes('Parallel worker', { content: 'one two three four five', delayMs: 60 });
    const nodes: Record<string, { name: string; params?: Record<string, unknown>; downstream?: string[] }> = { begin: { name: 'Begin', downstream: [] } };
    for (let i = 0; i < 7; i++) {
      nodes[`LLM:p${i}`] = { name: 'LLM', params: { ...model, sys_prompt: `Parallel worker ${i}.` } };
      nodes.begin!.downstream!.push(`LLM:p${i}`);
    }
    const canvas = await saveCanvas('parallel', dsl(nodes));
    llm.maxConcurrent = 0;
    const started = llm.calls.length;
    const r = await run(canvas, 'go');
    expect((await r.result()).status).toBe('finished');
    expect(llm.calls.length - started).toBe(7);
    expect(llm.maxConcurrent).toBe(5);
  });

  it('ends a call that exceeds its component timeout with a component error', async () => {
    llm.whenPromptIncludes('Stuck model', { hang: true });
    const canvas = await saveCanvas(
      'timeout',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:stuck'] },
        'LLM:stuck': { name: 'LLM', params: { ...model, sys_prompt: 'Stuck model.', timeout: 1, max_retries: 0 } },
      }),
    );
    const t = Date.now();
    const r = await run(canvas, 'go');
    const result = await r.result();
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/timed? ?out|timeout/i);
    expect(Date.now() - t).toBeLessThan(15_000);
  });
});
