/**
 * An agent completion in RAGFlow's format (`POST /api/v1/agents/chat/completions` and its older
 * route): the session's turn taken (chatTurn.ts), its workflow started, then its events streamed
 * as RAGFlow's SSE events ending with `data:[DONE]`, or collected into one RAGFlow answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';
import { openSse } from '../../sse';
import { eventId } from '../eventStream';
import { ragflowAnswer, ragflowEvent } from '../ragflowReplies';
import { collect, newCollector } from '../replies';
import { takeChatTurn, type ChatRequest } from './chatTurn';
import { collectReply, streamTurn } from './turnEvents';

export async function runAgentTurn(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: ChatRequest): Promise<unknown> {
  const turn = await takeChatTurn(deps, request.tenantId, req);
  try {
    if (!req.stream) {
      const collected = await collectReply(deps, request, reply, turn, req.returnTrace);
      return ragflowAnswer(collected, turn.sessionId, turn.runId, req.returnTrace);
    }
    const sse = openSse(request, reply, { dataPrefix: 'data:' });
    try {
      const collected = newCollector();
      for await (const e of streamTurn(deps, turn, sse.signal)) {
        collect(collected, e, req.returnTrace);
        sse.send(ragflowEvent(e, turn.sessionId, collected, req.returnTrace), eventId(e));
      }
      sse.done();
    } catch (err) {
      // A start Temporal refused (the run is failed), or the store out of reach: RAGFlow's error ends the stream.
      const message = err instanceof Error ? err.message : String(err);
      deps.log.error('completion stream failed', { runId: turn.runId, error: message });
      sse.send({ code: 100, message, data: false });
      sse.done();
    }
    return reply;
  } finally {
    turn.unfollow();
  }
}
