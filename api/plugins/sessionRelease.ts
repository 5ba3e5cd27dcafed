/**
 * The operator's way out of a locked session: `POST /api/v1/agents/{agent_id}/sessions/{session_id}/release`.
 * The run holding the session, if it is still open, is terminated in Temporal and recorded as
 * failed (its followers end); then the lock goes. Our own route: HTTP status codes, 404 for a
 * session of another tenant or agent.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { terminateAndRelease } from '../services/cancel';

const SessionParams = z.object({ agent_id: z.string().min(1), session_id: z.string().min(1) });

export const RELEASED_BY_OPERATOR = 'The run was stopped: an operator released its session';

export async function sessionReleasePlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/api/v1/agents/:agent_id/sessions/:session_id/release',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Release a session held by a run: terminates that run (recorded as failed) and frees the session for its next turn',
        params: SessionParams,
      },
    },
    async (request) => {
      const { agent_id, session_id } = request.params as z.infer<typeof SessionParams>;
      const session = await deps.store.sessions.get(request.tenantId, agent_id, session_id);
      if (!session) throw new AppError('NOT_FOUND', `Session ${session_id} not found`);
      const holder = session.active_run_id;
      if (!holder) return { session_id, released: false, task_id: null };
      await terminateAndRelease(deps, session.id, holder, RELEASED_BY_OPERATOR);
      return { session_id, released: true, task_id: holder };
    },
  );
}
