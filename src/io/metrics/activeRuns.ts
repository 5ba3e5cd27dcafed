/**
 * Runs in progress, read from the store when `/metrics` is scraped. Counting them in a process
 * (inc at start, dec at the end) cannot work once API and workers are apart: the API starts a run,
 * a worker ends it, and either may restart in between. The store knows the truth for the whole
 * deployment, so every API process reports the same cluster-wide figure (aggregate with max(), not
 * sum()). The query is the reconciler's own filter (status IN running, paused).
 */
import { Gauge } from 'prom-client';
import type { Queryable } from '../store/dbContract';
import { registry } from './registry';

const ACTIVE_STATUSES = ['running', 'paused'] as const;
/** A scrape must not hang on a store that does not answer: the series is left out instead. */
const QUERY_TIMEOUT_MS = 2000;

let source: Queryable | null = null;

async function countActive(db: Queryable): Promise<Map<string, number>> {
  const query = db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM runs WHERE status IN ('running', 'paused') GROUP BY status`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the store did not answer')), QUERY_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([query, timeout]);
    return new Map(result.rows.map((r) => [r.status, Number(r.n)]));
  } finally {
    clearTimeout(timer);
  }
}

export const activeRuns = new Gauge({
  name: 'agent_canvas_runs_active',
  help: 'Runs running or paused in the whole deployment (from the store at scrape time; every API process reports the same figure).',
  labelNames: ['status'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!source) return;
    try {
      const counts = await countActive(source);
      for (const status of ACTIVE_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    } catch {
      // The store is down: no figure rather than a stale one (health reports the store).
    }
  },
});

/** Reads active runs from `db` on each scrape, until the returned function is called. */
export function watchActiveRuns(db: Queryable): () => void {
  source = db;
  return () => {
    if (source === db) source = null;
  };
}
