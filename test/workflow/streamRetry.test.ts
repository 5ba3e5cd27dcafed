/**
 * A model call retried after it had streamed tokens into a Message, on a real Temporal dev
 * server with real activities and the scripted model over HTTP: every reader of the run's event
 * log, live or replaying from any event id, ends with the Message's final text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRunEvents } from '../../api/services/eventStream';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { collect, newCollector } from '../../api/services/replies';
import { openStore } from '../../src/io/store/store';
import type { EventCursor, Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { expectEventsInMap } from '../helpers/runEvents';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-stream-retry';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'stream retry tests');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

/** Reads the run's events after `after` to the end; records the text held after each event. */
async function read(runId: string, after: EventCursor | null, before: string) {
  const c = newCollector();
  c.content = before;
  const seen: Array<{ cursor: EventCursor; text: string; event: string }> = [];
  for await (const e of followRunEvents(store, runId, { after, signal: new AbortController().signal })) {
    expectEventsInMap([e]);
    collect(c, e, false);
    seen.push({ cursor: { seq: e.seq, sub: e.sub }, text: c.content, event: e.event });
  }
  return { text: c.content, seen };
}

describe('a retried model stream', () => {
  it('replays to the final Message text from the start and from every event id', async () => {
    // The first attempt streams part of an answer, then hangs until its timeout: it is retried.
    let attempts = 0;
    llm.whenPromptIncludes('Retry me.', () => (++attempts === 1 ? { hang: true, content: 'tok0 tok1 to' } : { content: 'tok0 tok1 tok2', delayMs: 2 }));
    const canvas = await store.canvases.create({
      tenantId,
      title: `retried stream ${Date.now()}`,
      dsl: dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': {
          name: 'LLM',
          params: { llm_id: 'scripted@OpenAI', sys_prompt: 'Retry me.', timeout: 3, max_retries: 1, delay_after_error: 1 },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['PREFIX-c3r13: {LLM:a@content}'] } },
      }),
    });
    const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u1', session: null });
    const live = read(launched.runId, null, '');
    const result = (await temporal.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
    expect(result).toMatchObject({ status: 'finished', content: 'PREFIX-c3r13: tok0 tok1 tok2' });
    expect(attempts).toBe(2);

    const final = result.content;
    const liveRead = await live;
    expect(liveRead.text).toBe(final);
    // The live reader got the first attempt's tokens, then the marker that drops them.
    expect(liveRead.seen.map((s) => s.event)).toContain('message_retry');
    const replay = await read(launched.runId, null, '');
    expect(replay.text).toBe(final);
    for (const { cursor, text } of [...liveRead.seen, ...replay.seen]) {
      const from = `${cursor.seq}-${cursor.sub}`;
      expect({ from, text: (await read(launched.runId, cursor, text)).text }).toEqual({ from, text: final });
    }
  });
});
