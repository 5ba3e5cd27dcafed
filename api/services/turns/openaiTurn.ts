/**
 * A completion in OpenAI's format (`POST /v1/chat/completions`, and RAGFlow's `"openai-compatible":
 * true` routes): the session's turn taken (chatTurn.ts), then delivered (turnEvents.ts): its
 * workflow started, its events streamed as chat completion chunks ending with a final chunk and
 * `data: [DONE]`, or collected into one chat completion (openAiReplies.ts). The reply's `id` is the
 * session id, `model` the canvas id.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';
import { openAiFormat } from '../openAiReplies';
import { takeChatTurn, type ChatRequest } from './chatTurn';
import { deliverTurn } from './turnEvents';

export async function runOpenAiTurn(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: ChatRequest): Promise<unknown> {
  const turn = await takeChatTurn(deps, request.tenantId, req);
  try {
    return await deliverTurn(deps, request, reply, turn, openAiFormat(turn, req));
  } finally {
    turn.unfollow();
  }
}
