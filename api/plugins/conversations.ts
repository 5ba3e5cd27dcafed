/**
 * `GET /api/v1/agents/{agent_id}/sessions/{session_id}/turns` (our route, HTTP statuses): a
 * session as a conversation, each turn with its run (api/services/conversation.ts). RAGFlow's
 * session routes (sessions.ts) give the messages only; the run view's session page needs the runs.
 * The next turn is sent with RAGFlow's completion route and `session_id`, as any client does.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../deps';
import { readConversation } from '../services/conversation';

const Params = z.object({ agent_id: z.string().min(1), session_id: z.string().min(1) });

export async function conversationsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.get(
    '/api/v1/agents/:agent_id/sessions/:session_id/turns',
    {
      schema: {
        tags: ['sessions'],
        summary: 'A session as a conversation: each turn’s question, answer, citations, attachments and run',
        params: Params,
      },
    },
    async (request) => {
      const { agent_id, session_id } = request.params as z.infer<typeof Params>;
      return readConversation(deps.store, request.tenantId, agent_id, session_id);
    },
  );
}
