/**
 * A model answer is a result only once the model said it finished: on a real Temporal dev server,
 * with the real activities and the scripted model over HTTP, a stream the provider cut off (no
 * finish_reason) and a stream whose worker shut down gracefully mid-answer both fail their
 * attempt, and the run's answer is the whole text the next attempt streamed: in its result and
 * for every reader of its event log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRunEvents } from '../../api/services/eventStream';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { collect, newCollector } from '../../api/services/replies';
import { openStore } from '../../src/io/store/store';
import { storeDb } from '../../src/io/store/storeDb';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
/** A second connection: the SDK allows one worker per task queue and connection. */
let other: TemporalHandles;
const workers: RunningWorker[] = [];
const tenantId = 'tenant-unfinished-stream';

beforeAll(async () => {
  [store, llm, temporal, other] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'unfinished stream tests');
});

afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => {});
  await Promise.all([temporal?.close(), other?.close(), llm?.stop(), store?.close()]);
});

const ANSWER = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');

/** A canvas whose one LLM step (retried after 1 s) answers into a Message. */
async function canvasAsking(prompt: string) {
  return store.canvases.create({
    tenantId,
    title: `unfinished stream ${prompt} ${Date.now()}`,
    dsl: dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: prompt, max_retries: 2, delay_after_error: 1 }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
    }),
  });
}

/** The Message's text as a reader replaying the whole log gets it. */
async function replayedText(runId: string): Promise<string> {
  const c = newCollector();
  for await (const e of followRunEvents(store, runId, { after: null, signal: new AbortController().signal })) collect(c, e, false);
  return c.content;
}

/** The model's tokens stored for the run (any slot), superseded ones included. */
async function storedTokens(runId: string): Promise<number> {
  const rows = await storeDb(store).query<{ n: number }>(`SELECT count(*)::int AS n FROM run_events WHERE run_id = $1 AND sub > 0 AND event = 'message'`, [
    runId,
  ]);
  return rows.rows[0]?.n ?? 0;
}

describe('a model stream that did not finish', () => {
  it('fails the attempt when the provider cuts the stream without finish_reason; the retry yields the whole answer', async () => {
    const worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
    workers.push(worker);
    let calls = 0;
    llm.whenPromptIncludes('Cut me.', () => (++calls === 1 ? { cut: true, content: ANSWER.slice(0, 40) } : { content: ANSWER }));
    const deps: LaunchDeps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: DEFAULT_RUN_SETTINGS };
    const canvas = await canvasAsking('Cut me.');
    const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u1', session: null });
    const result = (await temporal.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
    console.log(
      `[cut stream] model calls ${calls}, result ${result.content.length}/${ANSWER.length} chars, tokens stored ${await storedTokens(launched.runId)}`,
    );
    expect(result).toMatchObject({ status: 'finished', content: ANSWER });
    expect(calls).toBe(2);
    expect(await replayedText(launched.runId)).toBe(ANSWER);
  }, 60_000);

  it('does not complete with partial text when its worker shuts down mid-stream; another worker finishes the answer', async () => {
    const first = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url, shutdownGraceMs: 300 });
    let calls = 0;
    // The first call streams part of the answer and then waits (however slow the shutdown is, it
    // cannot finish first); the retry answers at once.
    llm.whenPromptIncludes('Shut down under me.', () => (++calls === 1 ? { hang: true, content: ANSWER.slice(0, 100), delayMs: 20 } : { content: ANSWER }));
    const deps: LaunchDeps = { store, client: temporal.client, taskQueue: first.taskQueue, settings: DEFAULT_RUN_SETTINGS };
    const canvas = await canvasAsking('Shut down under me.');
    const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u1', session: null });
    // Shut the worker down while tokens flow, with another worker on the queue to take over.
    const deadline = Date.now() + 30_000;
    while ((await storedTokens(launched.runId)) < 5) {
      if (Date.now() > deadline) throw new Error('the first attempt never streamed');
      await new Promise((r) => setTimeout(r, 20));
    }
    const second = await startWorker({ nativeConnection: other.nativeConnection, store, llmBaseUrl: llm.url, taskQueue: first.taskQueue });
    workers.push(second);
    await first.stop();
    const tokensAtShutdown = await storedTokens(launched.runId);
    const result = (await temporal.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
    console.log(
      `[worker shutdown] model calls ${calls}, tokens stored by the stopped attempt ${tokensAtShutdown}, result ${result.content.length}/${ANSWER.length} chars`,
    );
    expect(result).toMatchObject({ status: 'finished', content: ANSWER });
    expect(calls).toBe(2);
    expect(await replayedText(launched.runId)).toBe(ANSWER);
  }, 90_000);
});
