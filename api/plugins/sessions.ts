/**
 * RAGFlow-compatible session routes for agents: create (returns the prologue), list, get, delete.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { pageParams } from '../paging';
import { launchDeps } from '../services/completion';
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
        ...pageParams(q, 'update_time'),
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
    { config: ragflow, schema: { tags: ['sessions'], summary: 'Delete sessions by id (or all with delete_all)' } },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      if (!(await store.canvases.get(request.tenantId, agent_id))) throw new AppError('NOT_FOUND', `You don't own the agent ${agent_id}`);
      const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as { ids?: unknown; delete_all?: unknown };
      let ids = Array.isArray(body.ids) ? [...new Set(body.ids.filter((v): v is string => typeof v === 'string'))] : [];
      if (ids.length === 0 && body.delete_all === true) {
        ids = (await store.sessions.list(request.tenantId, agent_id, { page: 1, pageSize: 0, orderby: 'update_time', desc: true })).items.map((s) => s.id);
      }
      const errors: string[] = [];
      let deleted = 0;
      for (const id of ids) {
        if (await store.sessions.delete(request.tenantId, agent_id, id)) deleted += 1;
        else errors.push(`The agent doesn't own the session ${id}`);
      }
      if (errors.length > 0 && deleted === 0) throw new AppError('NOT_FOUND', errors.join('; '));
      if (errors.length > 0)
        return { code: 0, message: `Partially deleted ${deleted} sessions with ${errors.length} errors`, data: { success_count: deleted, errors } };
      return { code: 0 };
    },
  );
}
