/**
 * Runs in progress, read from the store when `/metrics` is scraped. Counting them in a process
 * (inc at start, dec at the end) cannot work once API and workers are apart: the API starts a run,
 * a worker ends it, and either may restart in between. The store knows the truth for the whole
 * deployment, so every API process reports the same cluster-wide figure (aggregate with max(), not
 * sum()). The count is the reconciler's own filter (status IN running, paused).
 */
import { Gauge } from 'prom-client';
import { registry } from './registry';

/** Where the counts come from: the store's run index (store.runIndex), per status. */
export interface ActiveRunCounter {
  countActive(): Promise<ReadonlyMap<string, number>>;
}

const ACTIVE_STATUSES = ['running', 'paused'] as const;
/** A scrape must not hang on a store that does not answer: the series is left out instead. */
const QUERY_TIMEOUT_MS = 2000;

let source: ActiveRunCounter | null = null;

async function countActive(counter: ActiveRunCounter): Promise<ReadonlyMap<string, number>> {
  const query = counter.countActive();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the store did not answer')), QUERY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([query, timeout]);
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

/** Reads active runs from `counter` on each scrape, until the returned function is called. */
export function watchActiveRuns(counter: ActiveRunCounter): () => void {
  source = counter;
  return () => {
    if (source === counter) source = null;
  };
}
