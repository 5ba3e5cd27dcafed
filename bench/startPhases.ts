/**
 * Where a burst of starts spends its time: a Db wrapper that counts statements (by kind and
 * table), the time each took from call to answer (PGlite's own queue included) and the most in
 * flight at once; and per-run milestones (ms since the burst began) recorded by wrapping the
 * Temporal client's `workflow.start` and the event-writing activity. For benchmarks only.
 */
import type { Db, Queryable } from '../src/io/store/contract';

export interface QueryStats {
  count: number;
  totalMs: number;
}

/** Counts and times every statement a Db runs. */
export class DbMeter {
  readonly byLabel = new Map<string, QueryStats>();
  inFlight = 0;
  maxInFlight = 0;

  reset(): void {
    this.byLabel.clear();
    this.maxInFlight = this.inFlight;
  }

  /** `SELECT runs`, `INSERT run_events`, `UPDATE sessions`...: enough to tell the callers apart. */
  static label(sql: string): string {
    const s = sql.replace(/\s+/g, ' ').trim();
    const verb = s.split(' ')[0]!.toUpperCase();
    const table = /\b(?:FROM|INTO|UPDATE|JOIN)\s+([a-z_]+)/i.exec(s)?.[1] ?? (/pg_notify/.test(s) ? 'pg_notify' : '?');
    return `${verb} ${table}`;
  }

  async time<T>(sql: string, run: () => Promise<T>): Promise<T> {
    const label = DbMeter.label(sql);
    const t = performance.now();
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await run();
    } finally {
      this.inFlight--;
      const s = this.byLabel.get(label) ?? { count: 0, totalMs: 0 };
      s.count++;
      s.totalMs += performance.now() - t;
      this.byLabel.set(label, s);
    }
  }

  /** The same Db, every statement (in transactions too) counted. */
  wrap<D extends Db>(db: D): D {
    const metered = (q: Queryable): Queryable => ({ query: (sql, params) => this.time(sql, () => q.query(sql, params)) });
    return Object.assign(Object.create(db) as D, {
      query: (sql: string, params?: unknown[]) => this.time(sql, () => db.query(sql, params)),
      transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(metered(tx))),
      notify: (channel: string, payload: string) => this.time('SELECT pg_notify', () => db.notify(channel, payload)),
      listen: db.listen.bind(db),
      close: db.close.bind(db),
    });
  }

  /** The busiest statement kinds, as `label ×count (avg ms)`. */
  summary(perRuns: number, top = 8): Array<[string, string]> {
    return [...this.byLabel.entries()]
      .sort((a, b) => b[1].count - a[1].count)
      .slice(0, top)
      .map(([label, s]) => [`  ${label}`, `${(s.count / perRuns).toFixed(1)} per run, avg ${(s.totalMs / s.count).toFixed(1)} ms from call to answer`]);
  }
}

/** Per-run milestones, ms since the burst began. */
export class Milestones {
  private t0 = performance.now();
  readonly byName = new Map<string, Map<string, number>>();

  begin(): void {
    this.t0 = performance.now();
    this.byName.clear();
  }

  /** Records the first time `runId` reached `name`. */
  mark(name: string, runId: string): void {
    let runs = this.byName.get(name);
    if (!runs) this.byName.set(name, (runs = new Map()));
    if (!runs.has(runId)) runs.set(runId, performance.now() - this.t0);
  }

  /** Records `runId` reaching `name` at `epochMs` (ms since the epoch: a time taken in another thread). */
  markAt(name: string, runId: string, epochMs: number): void {
    let runs = this.byName.get(name);
    if (!runs) this.byName.set(name, (runs = new Map()));
    if (!runs.has(runId)) runs.set(runId, epochMs - performance.timeOrigin - this.t0);
  }

  values(name: string): number[] {
    return [...(this.byName.get(name)?.values() ?? [])];
  }
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export function describe(xs: number[]): string {
  return `p50 ${percentile(xs, 50).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms, max ${percentile(xs, 100).toFixed(0)} ms`;
}
