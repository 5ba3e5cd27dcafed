/**
 * Throttles failed API-key attempts per client address: a sliding window of the last
 * `limit` failures' times. Once an address has `limit` failures within `windowMs`, every request
 * from it that needs a key is refused (429, Retry-After) until the oldest of them leaves the
 * window — a valid key too, or a guesser could keep trying and learn which guess worked. Other
 * addresses are not affected. Kept in this process's memory (each API process throttles on its
 * own); at most MAX_ADDRESSES addresses are remembered, the stalest forgotten first.
 */

const MAX_ADDRESSES = 50_000;

export class FailedAuthThrottle {
  /** Failure times per address, oldest first, at most `limit` of them (Map order: least recently failed first). */
  private failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Milliseconds until `address` may try again; 0 when it may now. */
  retryAfterMs(address: string, nowMs = Date.now()): number {
    if (this.limit <= 0) return 0;
    const times = this.recent(address, nowMs);
    if (times.length < this.limit) return 0;
    return Math.max(1, times[0]! + this.windowMs - nowMs);
  }

  /** Records a failed attempt from `address`. */
  fail(address: string, nowMs = Date.now()): void {
    if (this.limit <= 0) return;
    const times = this.recent(address, nowMs);
    times.push(nowMs);
    if (times.length > this.limit) times.splice(0, times.length - this.limit);
    this.failures.delete(address);
    this.failures.set(address, times);
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
  }

  /** The address's failures still inside the window (older ones dropped). */
  private recent(address: string, nowMs: number): number[] {
    const times = this.failures.get(address);
    if (!times) return [];
    while (times.length > 0 && times[0]! <= nowMs - this.windowMs) times.shift();
    if (times.length === 0) this.failures.delete(address);
    return times;
  }
}
