/**
 * An agent completion in RAGFlow's format (`POST /api/v1/agents/chat/completions` and its older
 * route): the session's turn taken (chatTurn.ts), then delivered (turnEvents.ts): its workflow
 * started, its events streamed as RAGFlow's SSE events ending with `data:[DONE]`, or collected
 * into one RAGFlow answer (ragflowReplies.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';
import { ragflowFormat } from '../ragflowReplies';
import { takeChatTurn, type ChatRequest } from './chatTurn';
import { deliverTurn } from './turnEvents';

export async function runAgentTurn(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: ChatRequest): Promise<unknown> {
  const turn = await takeChatTurn(deps, request.tenantId, req);
  try {
    return await deliverTurn(deps, request, reply, turn, ragflowFormat(turn, req));
  } finally {
    turn.unfollow();
  }
}
