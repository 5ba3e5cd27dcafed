/**
 * What a reader of a run's event log gets (followRunEvents, behind every streaming route): a
 * replay from any event id must rebuild exactly the text a live reader saw, retried model streams
 * included, and a stream never ends before the run's last events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRunEvents } from '../../api/services/eventStream';
import { collect, newCollector } from '../../api/services/replies';
import type { RunEvent, RunEventName } from '../../src/core/engine/runEvents';
import { openStore } from '../../src/io/store/store';
import { newId } from '../../src/io/store/time';
import type { EventCursor, StoredEvent, Store } from '../../src/io/store/contract';

let store: Store;

beforeAll(async () => {
  store = await openStore({});
});

afterAll(async () => {
  await store?.close();
});

function ev(runId: string, seq: number, sub: number, event: RunEventName, data: Record<string, unknown> = {}): RunEvent {
  // The log's own tests store placeholder data: the store keeps whatever it is given.
  return { seq, sub, event, data, message_id: 'm1', created_at: 1, task_id: runId } as RunEvent;
}

async function newRun(): Promise<string> {
  const runId = newId();
  await store.runs.create({ id: runId, tenantId: 'tenant-replay', canvasId: 'canvas-replay', sessionId: null, workflowId: `wf-${runId}` });
  return runId;
}

/** The reply text a reader holding `before` ends with after reading everything after `after`. */
async function replayText(runId: string, after: EventCursor | null, before: string): Promise<string> {
  const c = newCollector();
  c.content = before;
  for await (const e of followRunEvents(store, runId, { after, signal: new AbortController().signal })) collect(c, e, false);
  return c.content;
}

/** A live reader driven one event at a time; records its text after each event it was sent. */
function liveReader(runId: string) {
  const it = followRunEvents(store, runId, { after: null, signal: new AbortController().signal });
  const c = newCollector();
  const seen: Array<{ cursor: EventCursor; text: string }> = [];
  return {
    seen,
    text: () => c.content,
    /** Reads until it was sent the event at (seq, sub). */
    async readThrough(seq: number, sub: number): Promise<void> {
      for (;;) {
        const next = await it.next();
        if (next.done) throw new Error(`the stream ended before ${seq}-${sub}`);
        const e: StoredEvent = next.value;
        collect(c, e, false);
        seen.push({ cursor: { seq: e.seq, sub: e.sub }, text: c.content });
        if (e.seq === seq && e.sub === sub) return;
      }
    },
  };
}

/** What the model activity does when it retries a stream that had sent tokens. */
async function retryStream(runId: string, seq: number, attempt: number, discardChars: number): Promise<number> {
  const last = await store.events.lastSub(runId, seq);
  await store.events.supersede(runId, seq);
  await store.events.append(runId, [ev(runId, seq, last + 1, 'message_retry', { component_id: 'LLM:a', attempt, discard_chars: discardChars })]);
  return last + 1;
}

describe('replaying a run whose model stream was retried', () => {
  it('rebuilds the final answer from the start and from every event id a reader was sent', async () => {
    const runId = await newRun();
    await store.events.append(runId, [ev(runId, 1, 0, 'workflow_started'), ev(runId, 2, 0, 'message', { content: 'PREFIX-c3r13: ' })]);
    // Attempt 1 streams three tokens (12 characters), seen live, then fails.
    await store.events.append(runId, [
      ev(runId, 3, 1, 'message', { content: 'tok0 ' }),
      ev(runId, 3, 2, 'message', { content: 'tok1 ' }),
      ev(runId, 3, 3, 'message', { content: 'to' }),
    ]);
    const live = liveReader(runId);
    await live.readThrough(3, 3);
    // Attempt 2 streams one token, then fails too.
    const marker2 = await retryStream(runId, 3, 2, 12);
    await store.events.append(runId, [ev(runId, 3, marker2 + 1, 'message', { content: 'tok0 ' })]);
    await live.readThrough(3, marker2 + 1);
    // Attempt 3 streams the whole answer and the run ends.
    const marker3 = await retryStream(runId, 3, 3, 5);
    const answer = ['tok0 ', 'tok1 ', 'tok2'];
    await store.events.append(
      runId,
      answer.map((content, i) => ev(runId, 3, marker3 + 1 + i, 'message', { content })),
    );
    await store.runs.setStatus(runId, 'finished');
    await store.events.append(runId, [ev(runId, 4, 0, 'message_end'), ev(runId, 5, 0, 'workflow_finished')]);
    await live.readThrough(5, 0);

    const final = 'PREFIX-c3r13: tok0 tok1 tok2';
    expect(live.text()).toBe(final);
    expect(await replayText(runId, null, '')).toBe(final);
    // Every id the live reader was sent (the retried tokens' ids included), and every id a reader
    // replaying the log now is sent, resumed with the text that reader held at that id.
    const replayer = liveReader(runId);
    await replayer.readThrough(5, 0);
    const cursors = [...live.seen, ...replayer.seen];
    expect(cursors.length).toBeGreaterThan(15);
    for (const { cursor, text } of cursors) {
      expect({ from: `${cursor.seq}-${cursor.sub}`, text: await replayText(runId, cursor, text) }).toEqual({
        from: `${cursor.seq}-${cursor.sub}`,
        text: final,
      });
    }
  });

  it('withholds the retry marker from a reader that was sent none of the retried tokens', async () => {
    const runId = await newRun();
    await store.events.append(runId, [ev(runId, 1, 0, 'message', { content: 'Hello ' }), ev(runId, 2, 1, 'message', { content: 'wor' })]);
    const marker = await retryStream(runId, 2, 2, 3);
    await store.events.append(runId, [ev(runId, 2, marker + 1, 'message', { content: 'world' }), ev(runId, 3, 0, 'workflow_finished')]);
    const sent: string[] = [];
    for await (const e of followRunEvents(store, runId, { after: null, signal: new AbortController().signal })) sent.push(e.event);
    expect(sent).toEqual(['message', 'message', 'workflow_finished']);
  });
});

describe('the end of a run stream', () => {
  it('waits for the last events of a run whose status was written first', async () => {
    const runId = await newRun();
    await store.events.append(runId, [ev(runId, 1, 0, 'workflow_started'), ev(runId, 2, 0, 'message', { content: 'done' })]);
    // finalizeRun writes the status, then the last events: a reader may look in between.
    await store.runs.setStatus(runId, 'finished');
    const it = followRunEvents(store, runId, { after: null, signal: new AbortController().signal });
    expect((await it.next()).value).toMatchObject({ event: 'workflow_started' });
    expect((await it.next()).value).toMatchObject({ event: 'message' });
    const pending = it.next();
    // Give the reader time to find the log read to its end and the run's row ended.
    await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 300))]);
    await store.events.append(runId, [ev(runId, 3, 0, 'message_end'), ev(runId, 4, 0, 'workflow_finished')]);
    expect(await pending).toMatchObject({ done: false, value: { event: 'message_end' } });
    expect(await it.next()).toMatchObject({ done: false, value: { event: 'workflow_finished' } });
    expect((await it.next()).done).toBe(true);
  });

  it('still ends the stream of a run that ended without a terminal event', async () => {
    const runId = await newRun();
    await store.events.append(runId, [ev(runId, 1, 0, 'workflow_started')]);
    await store.runs.setStatus(runId, 'failed', { error: 'its worker is gone' });
    const sent: string[] = [];
    for await (const e of followRunEvents(store, runId, { after: null, signal: new AbortController().signal, endGraceMs: 50, pollMs: 20 })) sent.push(e.event);
    expect(sent).toEqual(['workflow_started']);
  });

  it('ends at once for a reader resuming after the terminal event', async () => {
    const runId = await newRun();
    await store.events.append(runId, [ev(runId, 1, 0, 'workflow_started'), ev(runId, 2, 0, 'workflow_finished')]);
    await store.runs.setStatus(runId, 'finished');
    const sent: string[] = [];
    // A grace this long would time the test out: the stored terminal event ends the stream.
    for await (const e of followRunEvents(store, runId, { after: { seq: 2, sub: 0 }, signal: new AbortController().signal, endGraceMs: 600_000 }))
      sent.push(e.event);
    expect(sent).toEqual([]);
  });
});
