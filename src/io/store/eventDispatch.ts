/**
 * The wake-ups of a run's readers: the one LISTEN of a Db fanned out to per-run subscribers, and,
 * on PGlite, the rows an append of this process stored handed to them directly.
 */
import type { Db, StoredEvent } from './contract';

/** One channel for every run: the payload is the run id. */
export const RUN_EVENTS_CHANNEL = 'run_events';

/**
 * Fans the one LISTEN of a Db out to per-run subscribers. Kept per Db (not per store) so the
 * number of listening connections never grows with the number of stores or subscribers.
 */
class RunEventDispatcher {
  private readonly subscribers = new Map<string, Set<(appended?: StoredEvent[]) => void>>();
  private started: Promise<unknown> | null = null;

  constructor(private readonly db: Db) {}

  async subscribe(runId: string, onNew: (appended?: StoredEvent[]) => void): Promise<() => Promise<void>> {
    // Registered before LISTEN is active: nothing notified after this call resolves is missed.
    const entry = (appended?: StoredEvent[]) => onNew(appended);
    let set = this.subscribers.get(runId);
    if (!set) {
      set = new Set();
      this.subscribers.set(runId, set);
    }
    set.add(entry);
    try {
      await this.start();
    } catch (err) {
      this.remove(runId, entry);
      throw err;
    }
    return async () => this.remove(runId, entry);
  }

  private start(): Promise<unknown> {
    this.started ??= this.db
      .listen(RUN_EVENTS_CHANNEL, (runId) => this.dispatch(runId))
      .catch((err: unknown) => {
        this.started = null; // let the next subscriber try again
        throw err;
      });
    return this.started;
  }

  /** Wakes the run's subscribers; with the events just stored when the append was made here. */
  dispatch(runId: string, appended?: StoredEvent[]): void {
    for (const onNew of [...(this.subscribers.get(runId) ?? [])]) {
      try {
        onNew(appended);
      } catch {
        // A subscriber's failure is its own business; the others must still be woken.
      }
    }
  }

  private remove(runId: string, entry: (appended?: StoredEvent[]) => void): void {
    const set = this.subscribers.get(runId);
    if (!set) return;
    set.delete(entry);
    if (set.size === 0) this.subscribers.delete(runId);
  }
}

const dispatchers = new WeakMap<Db, RunEventDispatcher>();

export function dispatcherFor(db: Db): RunEventDispatcher {
  let dispatcher = dispatchers.get(db);
  if (!dispatcher) {
    dispatcher = new RunEventDispatcher(db);
    dispatchers.set(db, dispatcher);
  }
  return dispatcher;
}
