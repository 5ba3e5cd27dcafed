/**
 * `GET /health`: 200 only when the API, the store, Temporal and a worker are all ready; 503
 * naming what is not. "A worker" means the run task queue has recent pollers for both workflow
 * and activity tasks (Temporal's DescribeTaskQueue), so an API-only process without workers
 * reports itself unable to run anything instead of accepting runs that would never start.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps';

/** A live idle worker re-polls about once a minute (the server's long-poll timeout). */
const POLLER_FRESH_MS = 120_000;
/** Health checks come often (load balancers, readiness probes); Temporal is asked at most this often. */
const POLLERS_CACHE_MS = 2000;
const TASK_TYPES = [
  { type: 1, name: 'workflow' },
  { type: 2, name: 'activity' },
] as const;

/** Resolves when both task types of the queue have a recent poller; rejects naming the ones that do not. */
function pollersProbe(deps: AppDeps): () => Promise<void> {
  let cached: { at: number; answer: Promise<void> } | null = null;
  const ask = async () => {
    const namespace = deps.temporal.options.namespace;
    const missing: string[] = [];
    for (const { type, name } of TASK_TYPES) {
      const res = await deps.temporal.workflowService.describeTaskQueue({ namespace, taskQueue: { name: deps.taskQueue, kind: 1 }, taskQueueType: type });
      const recent = (res.pollers ?? []).some(
        (p) => p.lastAccessTime?.seconds != null && Date.now() - Number(p.lastAccessTime.seconds) * 1000 < POLLER_FRESH_MS,
      );
      if (!recent) missing.push(name);
    }
    if (missing.length > 0) throw new Error(`no worker polls task queue "${deps.taskQueue}" for ${missing.join(' or ')} tasks`);
  };
  return () => {
    if (!cached || Date.now() - cached.at > POLLERS_CACHE_MS) {
      cached = { at: Date.now(), answer: ask() };
      cached.answer.catch(() => undefined);
    }
    return cached.answer;
  };
}

async function check(probe: () => Promise<unknown>, timeoutMs = 3000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([probe(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)))]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

export async function healthPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const pollers = pollersProbe(deps);
  app.get(
    '/health',
    { config: { auth: false }, schema: { tags: ['health'], summary: 'Readiness of the API, store, Temporal and a worker polling the task queue' } },
    async (_request, reply) => {
      const probes: Record<string, () => Promise<unknown>> = {
        store: () => deps.store.ping(),
        temporal: () => deps.temporal.workflowService.getSystemInfo({}),
        pollers,
        ...deps.probes,
      };
      const names = Object.keys(probes);
      const results = await Promise.all(names.map((n) => check(probes[n]!)));
      const checks: Record<string, string> = { api: 'ok' };
      names.forEach((n, i) => (checks[n] = results[i]!));
      const ok = Object.values(checks).every((v) => v === 'ok');
      return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
    },
  );
}
