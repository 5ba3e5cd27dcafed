/**
 * A completion in OpenAI's format (`POST /v1/chat/completions`, and RAGFlow's `"openai-compatible":
 * true` routes): the session's turn taken (chatTurn.ts), then delivered (turnEvents.ts): its
 * workflow started, its events streamed as chat completion chunks ending with a final chunk and
 * `data: [DONE]`, or collected into one chat completion (openAiReplies.ts). The reply's `id` is the
 * session id, `model` the canvas id. Every reply names its run in {@link RUN_ID_HEADER}; each
 * streamed chunk carries its event's `id:` (`<seq>-<sub>`), so a client that lost the stream
 * resumes it with {@link resumeOpenAiStream} (`GET /v1/chat/completions/{run id}/stream`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventCursor, RunRecord, StoredEvent } from '../../../src/io/store/contract';
import type { AppDeps } from '../../deps';
import { openSse } from '../../sse';
import { eventId, followRunEvents } from '../eventStream';
import { followRun } from '../followers';
import { openAiFormat, openAiStreamFormat } from '../openAiReplies';
import { joinFor } from '../openAiStream';
import { collect, newCollector } from '../replies';
import { takeChatTurn, type ChatRequest } from './chatTurn';
import { deliverTurn } from './turnEvents';

/** The response header naming the run behind a completion (the id to resume its stream with). */
export const RUN_ID_HEADER = 'x-agent-canvas-run-id';

export async function runOpenAiTurn(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: ChatRequest): Promise<unknown> {
  const turn = await takeChatTurn(deps, request.tenantId, req);
  // Set on the raw response: a stream hijacks the reply and writes its own head (sse.ts), which keeps it.
  reply.raw.setHeader(RUN_ID_HEADER, turn.runId);
  try {
    return await deliverTurn(deps, request, reply, turn, openAiFormat(turn, req));
  } finally {
    turn.unfollow();
  }
}

const endsReply = (e: StoredEvent): boolean => e.event === 'user_inputs';

/**
 * Streams a completion's chunks again from the stored events after `after` (null: from the run's
 * first event), as the completion did: the same chunk `id` (the session) and `model`, each
 * event's `id:`, ending with the final chunk and `[DONE]` when the run ends or pauses for a form.
 * The store holds every event, so this works after an API restart too.
 */
export async function resumeOpenAiStream(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  run: RunRecord,
  after: EventCursor | null,
): Promise<unknown> {
  reply.raw.setHeader(RUN_ID_HEADER, run.id);
  const join = await joinFor(deps.store, run.id, after);
  const format = openAiStreamFormat({ id: run.session_id ?? run.id, model: run.canvas_id, created: Math.floor(Date.now() / 1000) }, join);
  const sse = openSse(request, reply, { dataPrefix: format.dataPrefix });
  // A reader here keeps the run's session from being superseded (supersede.ts), as the completion's did.
  const unfollow = followRun(run.id);
  try {
    const collected = newCollector();
    for await (const e of followRunEvents(deps.store, run.id, { after, signal: sse.signal, stopAfter: endsReply })) {
      collect(collected, e, false);
      const frame = format.frame(e, collected);
      if (frame) sse.send(frame, eventId(e));
    }
    const last = format.last(collected);
    if (last && !sse.signal.aborted) sse.send(last);
    sse.done();
  } catch (err) {
    // The store failed mid-stream: end without [DONE]; the client resumes again from its last id.
    deps.log.warn('resumed OpenAI stream ended by an error; the client resumes', { runId: run.id, error: err instanceof Error ? err.message : String(err) });
    sse.close();
  } finally {
    unfollow();
  }
  return reply;
}
