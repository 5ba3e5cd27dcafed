/**
 * A reader following a run's log while it is written (api/services/eventStream.ts): on PGlite the
 * appends hand their events to the reader, and its reads race them; whichever way each append
 * reaches it, the reader gets every event once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRunEvents } from '../../api/services/eventStream';
import { openStore } from '../../src/io/store/store';
import { newId } from '../../src/io/store/time';
import type { RunRecord, Store } from '../../src/io/store/contract';
import { runEvent } from './cases/context';

let store: Store;
beforeAll(async () => {
  store = await openStore({});
});
afterAll(async () => {
  await store?.close();
});

describe('a reader following a log as it is written', () => {
  it('gets every event once and in order while appends of one to three events race its reads', async () => {
    const runId = newId();
    await store.events.append(runId, [runEvent(1, 0, 'workflow_started')]);
    const seen: string[] = [];
    const reader = (async () => {
      for await (const e of followRunEvents(store, runId, { after: null, signal: new AbortController().signal, checkRunFirst: false }))
        seen.push(`${e.seq}.${e.sub}`);
    })();
    const expected = ['1.0'];
    let sub = 0;
    for (let i = 0; i < 300; i++) {
      const batch = Array.from({ length: 1 + (i % 3) }, () => runEvent(2, ++sub, 'message', { content: 't' }));
      expected.push(...batch.map((e) => `${e.seq}.${e.sub}`));
      // Some appends wait for the last, some overlap it: the reader sees both kinds.
      const written = store.events.append(runId, batch);
      if (i % 4 !== 0) await written;
    }
    await store.events.append(runId, [runEvent(3, 0, 'workflow_finished')]);
    expected.push('3.0');
    await reader;
    expect(seen).toEqual(expected);
  });

  it('reads a terminal event stored between its check of the log and its check for an ending', async () => {
    const runId = newId();
    await store.events.append(runId, [runEvent(1, 0, 'workflow_started')]);
    // The run's row says it ended; its last event lands just as the reader asks whether one exists.
    const racing: Store = {
      ...store,
      runs: { ...store.runs, getById: async () => ({ id: runId, status: 'finished' }) as RunRecord },
      events: {
        ...store.events,
        hasTerminal: async (id) => {
          await store.events.append(id, [runEvent(2, 0, 'workflow_finished')]);
          return store.events.hasTerminal(id);
        },
      },
    };
    const seen: string[] = [];
    for await (const e of followRunEvents(racing, runId, { after: { seq: 1, sub: 0 }, signal: new AbortController().signal, checkRunFirst: true }))
      seen.push(e.event);
    expect(seen).toEqual(['workflow_finished']);
  });

  it('starts a fresh run once it listens and gets all it writes without reading the log first', async () => {
    const runId = newId();
    await store.events.append(runId, [runEvent(1, 0, 'workflow_started')]);
    let reads = 0;
    const counting: Store = { ...store, events: { ...store.events, list: (...args) => (reads++, store.events.list(...args)) } };
    let started = false;
    // The "workflow": writes as soon as it is started, which the reader does once subscribed.
    const start = () => {
      started = true;
      void store.events
        .append(runId, [runEvent(2, 0, 'node_started')])
        .then(() => store.events.append(runId, [runEvent(2, 1, 'message', { content: 'hi' }), runEvent(3, 0, 'workflow_finished')]));
    };
    const seen: string[] = [];
    for await (const e of followRunEvents(counting, runId, {
      after: { seq: 1, sub: 0 },
      signal: new AbortController().signal,
      checkRunFirst: false,
      onSubscribed: start,
    }))
      seen.push(`${e.seq}.${e.sub}`);
    expect(started).toBe(true);
    expect(seen).toEqual(['2.0', '2.1', '3.0']);
    expect(reads).toBe(0);
  });
});
