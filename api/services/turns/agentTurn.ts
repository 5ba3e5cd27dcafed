/**
 * An agent completion in RAGFlow's format (`POST /api/v1/agents/chat/completions` and its older
 * route): the session's turn taken (chatTurn.ts), then delivered (turnEvents.ts): its workflow
 * started, its events streamed as RAGFlow's SSE events ending with `data:[DONE]`, or collected
 * into one RAGFlow answer (ragflowReplies.ts). A message its policy queued or steered
 * (messagePolicy.ts) is answered at once without streaming (`queued`/`steered` in `data`); streamed,
 * a queued one first gets a `message_queued` frame, then its turn's events once it starts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';
import { ragflowFormat } from '../ragflowReplies';
import { takeChatTurn, type ChatRequest, type ChatTurn } from './chatTurn';
import { deliverTurn, type PolicyReplies } from './turnEvents';

/** The answer to a message that did not start a turn now, in RAGFlow's envelope. */
export function policyAck(turn: ChatTurn): Record<string, unknown> {
  const base = { session_id: turn.sessionId, task_id: turn.runId };
  if (turn.queued) return { code: 0, message: '', data: { ...base, queued: true, position: turn.queued.position, message_id: turn.queued.messageId } };
  const s = turn.steered!;
  return { code: 0, message: '', data: { ...base, steered: true, message_id: s.steerId, component_ids: s.componentIds } };
}

const ragflowPolicyReplies: PolicyReplies = {
  ack: policyAck,
  queued: (turn) => ({
    event: 'message_queued',
    message_id: turn.queued!.messageId,
    task_id: turn.runId,
    session_id: turn.sessionId,
    data: { position: turn.queued!.position },
  }),
};

export async function runAgentTurn(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: ChatRequest): Promise<unknown> {
  const turn = await takeChatTurn(deps, request.tenantId, req);
  try {
    return await deliverTurn(deps, request, reply, turn, ragflowFormat(turn, req), ragflowPolicyReplies);
  } finally {
    turn.unfollow();
  }
}
