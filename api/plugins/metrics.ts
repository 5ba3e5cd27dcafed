/**
 * `GET /metrics`: Prometheus text of this process (src/io/metrics), the Temporal SDK's series
 * included when a worker runs here too (role `all`). Unauthenticated like /health: scrapers carry
 * no tenant key, and no series names a tenant, canvas or run (labels are statuses and component
 * and activity types). Keep it off the public ingress (docs/DEPLOY.md). RAGFlow has no such route.
 */
import type { FastifyInstance } from 'fastify';
import { watchActiveRuns } from '../../src/io/metrics/activeRuns';
import { metricsPage } from '../../src/io/metrics/exposition';
import type { AppDeps } from '../deps';

export const METRICS_PATH = '/metrics';

export async function metricsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const unwatch = watchActiveRuns(deps.store.runIndex);
  app.addHook('onClose', async () => unwatch());
  app.get(
    METRICS_PATH,
    { config: { auth: false }, schema: { tags: ['health'], summary: 'Prometheus metrics of this process (text format 0.0.4); no API key' } },
    async (_request, reply) => {
      const page = await metricsPage();
      return reply.type(page.contentType).send(page.body);
    },
  );
}
