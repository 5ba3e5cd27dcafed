/**
 * Support routes RAGFlow clients call: the agent templates and the overridable prompt sections,
 * plus our OpenAPI document.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { AGENT_PROMPTS } from '../prompts';

export async function metaPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.get('/api/v1/agents/templates', { config: { ragflow: true }, schema: { tags: ['agents'], summary: 'Canvas templates to start from' } }, async () =>
    ragflowJson(deps.templates ? await deps.templates() : []),
  );

  app.get(
    '/api/v1/agents/prompts',
    { config: { ragflow: true }, schema: { tags: ['agents'], summary: 'Prompt sections an Agent system prompt can override' } },
    async () => ragflowJson(AGENT_PROMPTS),
  );

  app.get('/api/v1/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
}
