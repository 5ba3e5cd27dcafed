/**
 * `GET /health`: 200 only when the API, the store, Temporal and the worker are all ready; 503
 * naming what is not.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps';

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
  app.get('/health', { config: { auth: false }, schema: { tags: ['health'], summary: 'Readiness of the API, store, Temporal and worker' } }, async (_request, reply) => {
    const probes: Record<string, () => Promise<unknown>> = {
      store: () => deps.store.db.query('SELECT 1'),
      temporal: () => deps.temporal.workflowService.getSystemInfo({}),
      ...deps.probes,
    };
    const names = Object.keys(probes);
    const results = await Promise.all(names.map((n) => check(probes[n]!)));
    const checks: Record<string, string> = { api: 'ok' };
    names.forEach((n, i) => (checks[n] = results[i]!));
    const ok = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  });
}
