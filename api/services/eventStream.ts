/**
 * Reads a run's event log as it grows: what is stored after a cursor, then new events as they
 * are appended. Readers are woken by the store's notifications, one read per wake-up (on an
 * embedded store the notification hands over the events themselves, and nothing is read); a slow
 * safety poll (which also checks the run's status) covers notifications lost while a
 * PostgreSQL listener reconnects. Used by every streaming route, so a client can resume after a
 * disconnect or an API restart.
 */
import { shownText } from '../../src/core/engine/runEvents';
import type { EventCursor, StoredEvent, Store } from '../../src/io/store/contract';

export interface FollowOptions {
  after: EventCursor | null;
  signal: AbortSignal;
  /** Stop after an event this returns true for (besides terminal events). */
  stopAfter?: (e: StoredEvent) => boolean;
  /** The safety poll: how long a reader waits for a notification before reading (and checking the run) anyway. */
  pollMs?: number;
  /**
   * How long a run whose row says it ended may stay without a terminal event before the reader
   * gives up on it. Its last events are written just after its status; a run that truly never
   * writes them (it never started, its worker died) still ends the stream.
   */
  endGraceMs?: number;
  /**
   * Whether to check the run's row before the first wait; by default a reader resuming from a
   * cursor does (its run may have ended long ago). A reader whose caller just recorded the run
   * (and showed its first event) has nothing to ask yet.
   */
  checkRunFirst?: boolean;
  /**
   * Called once the reader is subscribed, before anything is read: the caller starts the run's
   * workflow here, so nothing can be stored after `after` that the subscription does not see, and
   * the reader skips its first read (on a fresh run it would find nothing, and it would compete
   * with the run's start for the store).
   */
  onSubscribed?: () => void;
}

const PAGE = 500;
/**
 * Every append notifies, so polling only matters when a notification was lost. Polling each
 * reader twice a second made a burst of 200 streams cost 40 of the ~60 statements a run makes,
 * all in PGlite's one queue.
 */
const SAFETY_POLL_MS = 5000;
/** While a run that ended waits for its terminal event, its row is checked this often. */
const GRACE_POLL_MS = 500;
/**
 * How long a run whose row has ended may go without its terminal event before its readers stop.
 * finalizeRun ends the row with the last events in one statement, but other paths end a row first
 * and write their terminal event after (the launcher for a refused start, the reconciler for runs
 * ended outside our control); under a burst those writes queue, and 5 s ended 3 of 200 streams
 * early. So this only bounds a reader's wait when a store failure lost a terminal event.
 */
const END_GRACE_MS = 30_000;
const ENDED = new Set(['failed', 'canceled', 'finished']);

/** The text a `message` event adds to the reply, as every route renders it. */
/**
 * What one reader was sent of each stream slot since the slot's last retry. A retried model
 * call hides the earlier attempt's tokens from later reads, so the `message_retry` stored with it
 * must drop exactly what this reader got — nothing for a reader that replays the log after the
 * retry (the marker is then withheld), part of it for one that joined mid-stream.
 */
class SlotLedger {
  private readonly sent = new Map<number, number>();

  /** The event as this reader gets it, or null when it must not get it. */
  pass(e: StoredEvent): StoredEvent | null {
    if (e.event === 'message' && e.sub > 0) {
      this.sent.set(e.seq, (this.sent.get(e.seq) ?? 0) + shownText(e).length);
      return e;
    }
    if (e.event !== 'message_retry') return e;
    const got = this.sent.get(e.seq) ?? 0;
    this.sent.delete(e.seq);
    return got === 0 ? null : { ...e, data: { ...e.data, discard_chars: got } };
  }
}

/**
 * A reader resuming inside a stream slot already holds that slot's text up to its cursor
 * (superseded tokens included: it got them before they were hidden).
 */
async function ledgerFor(store: Store, runId: string, after: EventCursor | null): Promise<SlotLedger> {
  const ledger = new SlotLedger();
  if (after && after.sub > 0) for (const e of await store.events.slotUpTo(runId, after)) ledger.pass(e);
  return ledger;
}

/** Yields the run's events after `after`, until a terminal event (or `stopAfter`), or abort. */
export async function* followRunEvents(store: Store, runId: string, opts: FollowOptions): AsyncGenerator<StoredEvent> {
  let cursor = opts.after;
  /** Woken with nothing to go on (or while reading): the next batch is read from the store. The first is, unless nothing can be stored yet (onSubscribed). */
  let notified = opts.onSubscribed === undefined;
  let skipRead = !notified;
  /** Events handed over by their append (an embedded store) since the last read, in order. */
  let pushed: StoredEvent[] = [];
  let reading = false;
  let wake: (() => void) | null = null;
  const unsubscribe = await store.events.subscribe(runId, (appended) => {
    // Handed-over events are what a read would find next only when no read is under way (it may
    // or may not see them) and nothing came without its events since the last read.
    if (appended && !reading && !notified) pushed.push(...appended);
    else notified = true;
    wake?.();
  });
  /** Whether the run's row is to be checked: after a wait no notification cut short (the safety poll), or at once (checkRunFirst). */
  let pollTimedOut = opts.checkRunFirst ?? cursor !== null;
  /** Since when the run's row says it ended while no terminal event is stored. */
  let endedQuietSince: number | null = null;
  try {
    opts.onSubscribed?.();
    const ledger = await ledgerFor(store, runId, cursor);
    while (!opts.signal.aborted) {
      let batch: StoredEvent[];
      if (skipRead) {
        skipRead = false;
        batch = [];
      } else if (pushed.length > 0 && !notified) {
        const after = cursor;
        batch = after ? pushed.filter((e) => e.seq > after.seq || (e.seq === after.seq && e.sub > after.sub)) : pushed;
        pushed = [];
      } else {
        pushed = [];
        notified = false;
        reading = true;
        try {
          batch = await store.events.list(runId, cursor, PAGE);
        } finally {
          reading = false;
        }
      }
      for (const e of batch) {
        cursor = { seq: e.seq, sub: e.sub };
        endedQuietSince = null;
        const shown = ledger.pass(e);
        if (shown) yield shown;
        if (e.terminal || opts.stopAfter?.(e)) return;
      }
      if (batch.length === PAGE || notified || pushed.length > 0) continue;
      // A notified reader knows the run is writing; only a quiet one asks how the run is.
      if (endedQuietSince !== null || pollTimedOut) {
        const run = await store.runs.getById(runId);
        if (!run) return;
        if (ENDED.has(run.status) && (await store.events.list(runId, cursor, 1)).length === 0) {
          // Some paths write the status before the last events: end on the terminal event, and only
          // give up waiting for it after a grace period. A terminal event stored since the read
          // just above is read before ending (200 starts at once ended one stream without it).
          if (await store.events.hasTerminal(runId)) {
            if ((await store.events.list(runId, cursor, 1)).length === 0) return;
            notified = true;
            continue;
          }
          endedQuietSince ??= Date.now();
          if (Date.now() - endedQuietSince >= (opts.endGraceMs ?? END_GRACE_MS)) return;
        }
      }
      const pollMs = opts.pollMs ?? SAFETY_POLL_MS;
      pollTimedOut = false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(timedOut, endedQuietSince !== null ? Math.min(pollMs, GRACE_POLL_MS) : pollMs);
        function timedOut() {
          pollTimedOut = true;
          done();
        }
        function done() {
          clearTimeout(timer);
          wake = null;
          opts.signal.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        opts.signal.addEventListener('abort', done, { once: true });
        if (notified || pushed.length > 0) done();
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
