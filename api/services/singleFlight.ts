/**
 * Concurrent identical reads share one query: a burst of 200 starts with the same API key and
 * agent made 200 identical lookups of each, every one a statement in PGlite's single queue. Only
 * reads in flight at the same time are shared and nothing is kept after the answer: a request
 * gets an answer read after it began or at most one query earlier, so a change (a revoked key, an
 * edited canvas) reaches every request from the next answer on. One instance per store.
 */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  /** `read()`'s answer, shared with every caller asking for `key` while it runs. */
  get(key: string, read: () => Promise<T>): Promise<T> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const started = read().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}
