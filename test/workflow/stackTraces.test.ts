/**
 * Workflow stack traces (WORKER_STACK_TRACES, workflows/preloadWithoutStacks.ts): off by default, so
 * the SDK captures no stack for the promises workflow code creates and the stack-trace query (the
 * Temporal UI's Stack Trace tab) has no frames to show; a worker with them on answers with the
 * frames the run waits in. On a real dev server with real activities.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { launchRun } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
const workers: RunningWorker[] = [];
const tenantId = 'tenant-stack-traces';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'stack traces');
  llm.whenPromptIncludes('Held.', { hang: true, content: 'still going ' });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

/** A run waiting on its model call (which never answers), on `worker`. */
async function waitingRun(worker: RunningWorker): Promise<WorkflowHandle> {
  const canvas = await store.canvases.create({
    tenantId,
    title: `held ${Date.now()} ${Math.random()}`,
    dsl: dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: 'Held.', max_retries: 0 }, downstream: [] },
    }),
  });
  const deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS } };
  const run = await launchRun(deps, { tenantId, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u1', session: null });
  const handle = temporal.client.workflow.getHandle(run.workflowId);
  for (let i = 0; i < 100 && ((await handle.describe()).raw.pendingActivities ?? []).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  return handle;
}

describe('workflow stack traces', () => {
  it('are off by default: the stack-trace query answers without frames', async () => {
    const worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
    workers.push(worker);
    const handle = await waitingRun(worker);
    const stack = await handle.query<string>('__stack_trace');
    expect(stack).not.toMatch(/\bat \S/);
    await handle.terminate('test over');
  });

  it('answer with the frames the run waits in when the worker has them on', async () => {
    const worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url, bundle: { stackTraces: true } });
    workers.push(worker);
    const handle = await waitingRun(worker);
    const stack = await handle.query<string>('__stack_trace');
    expect(stack).toMatch(/\bat \S/);
    expect(stack).toContain('workflows/canvasRun.ts');
    await handle.terminate('test over');
  }, 60_000);
});
