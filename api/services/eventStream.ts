/**
 * Reads a run's event log as it grows: what is stored after a cursor, then new events as they
 * are appended (woken by the store's notifications, with a short poll as a safety net). Used
 * by every streaming route, so a client can resume after a disconnect or an API restart.
 */
import type { EventCursor, StoredEvent, Store } from '../../src/store/types';

export interface FollowOptions {
  after: EventCursor | null;
  signal: AbortSignal;
  /** Stop after an event this returns true for (besides terminal events). */
  stopAfter?: (e: StoredEvent) => boolean;
  pollMs?: number;
}

const PAGE = 500;
const STATUS_CHECK_MS = 2000;

/** Yields the run's events after `after`, until a terminal event (or `stopAfter`), or abort. */
export async function* followRunEvents(store: Store, runId: string, opts: FollowOptions): AsyncGenerator<StoredEvent> {
  let cursor = opts.after;
  let notified = false;
  let wake: (() => void) | null = null;
  const unsubscribe = await store.events.subscribe(runId, () => {
    notified = true;
    wake?.();
  });
  let lastStatusCheck = 0;
  try {
    while (!opts.signal.aborted) {
      notified = false;
      const batch = await store.events.list(runId, cursor, PAGE);
      for (const e of batch) {
        cursor = { seq: e.seq, sub: e.sub };
        yield e;
        if (e.terminal || opts.stopAfter?.(e)) return;
      }
      if (batch.length === PAGE || notified) continue;
      if (Date.now() - lastStatusCheck > STATUS_CHECK_MS) {
        lastStatusCheck = Date.now();
        // A run that ended without a terminal event (it never started) has nothing more to say.
        const run = await store.runs.getById(runId);
        if (!run || ((run.status === 'failed' || run.status === 'canceled' || run.status === 'finished') && (await store.events.list(runId, cursor, 1)).length === 0)) return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, opts.pollMs ?? 500);
        function done() {
          clearTimeout(timer);
          wake = null;
          opts.signal.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        opts.signal.addEventListener('abort', done, { once: true });
        if (notified) done();
      });
    }
  } finally {
    await unsubscribe();
  }
}

/** `seq-sub`, the SSE id of an event. */
export function eventId(e: Pick<StoredEvent, 'seq' | 'sub'>): string {
  return `${e.seq}-${e.sub}`;
}

/** Parses a Last-Event-ID; null when absent, throws on garbage. */
export function parseEventId(raw: string | undefined): EventCursor | null {
  if (raw === undefined || raw.trim() === '') return null;
  const m = /^(\d+)(?:-(\d+))?$/.exec(raw.trim());
  if (!m) throw new Error(`Last-Event-ID "${raw}" is not an event id of the form <seq>-<sub>`);
  return { seq: Number(m[1]), sub: Number(m[2] ?? 0) };
}
