/**
 * What a run's revision (workflows/definitions.ts, RUN_REVISION) changes in its history: a run the
 * API starts now takes its patched branches without markers and leaves the RunStatus its start set;
 * a run started without a revision (by an older API) asks its patches and records its status as
 * before. On a real dev server with real activities.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { RUN_STATUS_KEY } from '../../src/core/searchAttributes';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunInput, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
const tenantId = 'tenant-run-revision';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'run revision');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  llm.whenPromptIncludes('Revised.', { content: 'fine' });
  llm.whenPromptIncludes('Held.', { hang: true, content: 'still going ' });
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

const canvasOf = (prompt: string) =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: prompt, max_retries: 0 }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });

/** The same client, except that its starts carry no revision: what an API older than RUN_REVISION 2 sent. */
function olderApi(client: Client): Client {
  const workflow = client.workflow;
  const start = (type: string, options: WorkflowStartOptions) => {
    const [input, ...rest] = options.args as [CanvasRunInput, ...unknown[]];
    const { revision: _dropped, ...older } = input;
    return workflow.start(type, { ...options, args: [older, ...rest] });
  };
  return Object.assign(Object.create(client) as Client, { workflow: Object.assign(Object.create(workflow) as Client['workflow'], { start }) });
}

async function launch(client: Client, prompt: string): Promise<{ handle: WorkflowHandle; runId: string }> {
  const deps: LaunchDeps = { store, client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS } };
  const canvas = await store.canvases.create({ tenantId, title: `${prompt} ${Date.now()} ${Math.random()}`, dsl: canvasOf(prompt) });
  const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u1', session: null });
  return { handle: temporal.client.workflow.getHandle(launched.workflowId), runId: launched.runId };
}

/** How many events of each kind that tells the revisions apart the run's history holds. */
async function marks(handle: WorkflowHandle): Promise<{ patches: number; upserts: number; events: number }> {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    patches: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length,
    upserts: events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes != null).length,
    events: events.length,
  };
}

describe('a run started by the API (revision 2)', () => {
  it('takes its patched branches without markers and upserts its status only when it ends', async () => {
    const { handle, runId } = await launch(temporal.client, 'Revised.');
    expect(((await handle.result()) as CanvasRunResult).status).toBe('finished');
    // Begin → LLM → Message: two workflow tasks, one activity, the closing local activity.
    expect(await marks(handle)).toEqual({ patches: 0, upserts: 1, events: 13 });
    expect((await handle.describe()).typedSearchAttributes.get(RUN_STATUS_KEY)).toBe('finished');
    expect((await store.runs.getById(runId))?.status).toBe('finished');
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, await handle.fetchHistory(), handle.workflowId);
  });

  it('shows as running while it runs: the status its start was given', async () => {
    const { handle, runId } = await launch(temporal.client, 'Held.');
    await expect.poll(async () => (await store.events.list(runId, null, 100)).some((e) => e.event === 'message'), { timeout: 10_000 }).toBe(true);
    expect((await handle.describe()).typedSearchAttributes.get(RUN_STATUS_KEY)).toBe('running');
    expect((await store.runs.getById(runId))?.status).toBe('running');
    expect((await marks(handle)).upserts).toBe(0);
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
  });
});

describe('a run started without a revision (an older API)', () => {
  it('asks its patches and upserts its status at its first step, as before', async () => {
    const { handle } = await launch(olderApi(temporal.client), 'Revised.');
    expect(((await handle.result()) as CanvasRunResult).status).toBe('finished');
    // The step-events and closing patches: a marker and a TemporalChangeVersion upsert each; RunStatus at the start and the end.
    expect(await marks(handle)).toEqual({ patches: 2, upserts: 4, events: 18 });
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, await handle.fetchHistory(), handle.workflowId);
  });
});
