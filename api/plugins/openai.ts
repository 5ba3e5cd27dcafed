/**
 * `POST /v1/chat/completions`: any OpenAI client can talk to a canvas, `model` being the canvas
 * id. The reply follows OpenAI's chat completions (chunks when streaming) with RAGFlow's extra
 * `reference`. `session_id` (an extension) continues a conversation; the reply's `id` is the
 * session id to send next time.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../deps';
import { runCompletion } from '../services/completion';
import { lastUserMessage } from './completions';

const MessageSchema = z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']), content: z.unknown() });

const Body = z.looseObject({
  model: z.string().min(1, 'model must name a canvas id'),
  messages: z.array(MessageSchema).min(1, 'at least one message is required'),
  stream: z.boolean().optional(),
  session_id: z.string().optional(),
  user: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
});

export async function openAiPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/v1/chat/completions',
    { schema: { tags: ['completions'], summary: 'OpenAI-compatible chat completions; model = canvas id', body: Body } },
    async (request, reply) => {
      const body = request.body as z.infer<typeof Body>;
      return runCompletion(deps, request, reply, {
        agentId: body.model,
        query: lastUserMessage(body.messages),
        sessionId: body.session_id ?? null,
        inputs: body.inputs ?? null,
        files: [],
        userId: body.user ?? null,
        stream: body.stream === true,
        returnTrace: false,
        format: 'openai',
      });
    },
  );
}
