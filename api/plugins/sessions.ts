/**
 * RAGFlow-compatible session routes for agents: create (returns the prologue), list, get, delete.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { restApiPageParams } from '../paging';
import { asBody } from '../ragflowArgs';
import { launchDeps } from '../services/runLauncher';
import { createSession, sessionView } from '../services/sessions';

const ragflow = { ragflow: true } as const;
const noAccess = () => new AppError('NO_PERMISSION', 'Make sure you have permission to access the agent.');

export async function sessionsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;

  app.post(
    '/api/v1/agents/:agent_id/sessions',
    { config: ragflow, schema: { tags: ['sessions'], summary: 'Start a session; the reply carries the prologue' } },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      const canvas = await store.canvases.get(request.tenantId, agent_id);
      if (!canvas) throw noAccess();
      const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
      const query = request.query as Record<string, string | undefined>;
      const userId = typeof body.user_id === 'string' && body.user_id ? body.user_id : (query.user_id ?? request.tenantId);
      const name = typeof body.name === 'string' ? body.name : '';
      const session = await createSession(launchDeps(deps), { tenantId: request.tenantId, canvas, name, userId });
      return { code: 0, data: sessionView(session, canvas) };
    },
  );

  app.get(
    '/api/v1/agents/:agent_id/sessions',
    { config: ragflow, schema: { tags: ['sessions'], summary: 'List the sessions of an agent' } },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      const canvas = await store.canvases.get(request.tenantId, agent_id);
      if (!canvas) throw noAccess();
      const q = request.query as Record<string, string | undefined>;
      const { items, total } = await store.sessions.list(request.tenantId, agent_id, {
        ...restApiPageParams(q, 'update_time'),
        id: q.id || undefined,
        userId: q.user_id || undefined,
      });
      const withDsl = !['false', 'False'].includes(q.dsl ?? 'true');
      return { ...ragflowJson(items.map((s) => sessionView(s, withDsl ? canvas : undefined))), total };
    },
  );

  app.get(
    '/api/v1/agents/:agent_id/sessions/:session_id',
    { config: ragflow, schema: { tags: ['sessions'], summary: 'Get a session with its messages' } },
    async (request) => {
      const { agent_id, session_id } = request.params as { agent_id: string; session_id: string };
      const canvas = await store.canvases.get(request.tenantId, agent_id);
      if (!canvas) throw noAccess();
      const session = await store.sessions.get(request.tenantId, agent_id, session_id);
      if (!session) throw new AppError('NOT_FOUND', 'Session not found!');
      return ragflowJson(sessionView(session, canvas));
    },
  );

  app.delete(
    '/api/v1/agents/:agent_id/sessions/:session_id',
    { config: ragflow, schema: { tags: ['sessions'], summary: 'Delete a session' } },
    async (request) => {
      const { agent_id, session_id } = request.params as { agent_id: string; session_id: string };
      if (!(await store.canvases.get(request.tenantId, agent_id))) throw noAccess();
      if (!(await store.sessions.delete(request.tenantId, agent_id, session_id))) throw new AppError('NOT_FOUND', 'Session not found!');
      return ragflowJson(true);
    },
  );

  app.delete(
    '/api/v1/agents/:agent_id/sessions',
    {
      config: ragflow,
      schema: { tags: ['sessions'], summary: 'Delete sessions by id (`ids`), or all of the agent’s with `delete_all: true` and no ids' },
    },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      if (!(await store.canvases.get(request.tenantId, agent_id))) throw noAccess();
      const body = asBody(request.body);
      // RAGFlow's semantics: no body, or no ids (absent, null, []) without `delete_all: true`,
      // deletes nothing and says success; `delete_all: true` with no ids deletes all the agent's.
      let ids: unknown[] = Array.isArray(body.ids) ? body.ids : [];
      if (ids.length === 0) {
        if (body.delete_all !== true) return { code: 0 };
        ids = (await store.sessions.list(request.tenantId, agent_id, { page: 1, pageSize: 0, orderby: 'update_time', desc: true })).items.map((s) => s.id);
        if (ids.length === 0) return { code: 0 };
      }
      const counts = new Map<string, number>();
      for (const id of ids) counts.set(String(id), (counts.get(String(id)) ?? 0) + 1);
      const duplicates = [...counts].filter(([, n]) => n > 1).map(([id]) => `Duplicate session ids: ${id}`);
      const errors: string[] = [];
      let deleted = 0;
      for (const id of counts.keys()) {
        if (await store.sessions.delete(request.tenantId, agent_id, id)) deleted += 1;
        else errors.push(`The agent doesn't own the session ${id}`);
      }
      if (errors.length > 0) {
        if (deleted > 0) return { code: 0, data: { success_count: deleted, errors } };
        throw new AppError('NOT_FOUND', errors.join('; '));
      }
      if (duplicates.length > 0) {
        if (deleted > 0) return { code: 0, data: { success_count: deleted, errors: duplicates } };
        throw new AppError('NOT_FOUND', duplicates.join(';'));
      }
      return { code: 0 };
    },
  );
}
