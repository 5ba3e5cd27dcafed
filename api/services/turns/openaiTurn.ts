/**
 * A completion in OpenAI's format (`POST /v1/chat/completions`, and RAGFlow's `"openai-compatible":
 * true` routes): the session's turn taken (chatTurn.ts), its workflow started, then its events
 * streamed as chat completion chunks ending with a final chunk and `data: [DONE]`, or collected
 * into one chat completion. The reply's `id` is the session id, `model` the canvas id.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';
import { openSse } from '../../sse';
import { eventId } from '../eventStream';
import { openAiAnswer, openAiChunkFor, openAiFinalChunk } from '../openAiReplies';
import { collect, newCollector } from '../replies';
import { takeChatTurn, type ChatRequest } from './chatTurn';
import { collectReply, streamTurn } from './turnEvents';

export async function runOpenAiTurn(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: ChatRequest): Promise<unknown> {
  const turn = await takeChatTurn(deps, request.tenantId, req);
  try {
    if (!req.stream) {
      const collected = await collectReply(deps, request, reply, turn, false);
      return openAiAnswer(collected, turn.sessionId, turn.canvasId, turn.runId);
    }
    const sse = openSse(request, reply, { dataPrefix: 'data: ' });
    try {
      const collected = newCollector();
      for await (const e of streamTurn(deps, turn, sse.signal)) {
        collect(collected, e, false);
        const piece = openAiChunkFor(e, turn.sessionId, turn.canvasId);
        if (piece) sse.send(piece, eventId(e));
      }
      if (!sse.signal.aborted) sse.send(openAiFinalChunk(collected, turn.sessionId, turn.canvasId));
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
