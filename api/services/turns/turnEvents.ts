/**
 * Delivers a chat turn, for the completion services, in the format they give (replies.ts
 * ReplyFormat): a new turn's workflow started first (a run is started once Temporal accepted its
 * workflow, and only then does the client learn its task id, with event 1; shown before the
 * start, an API that died in between left a client holding the id of a run the reconciler then
 * failed: issue 38, item 5), then the run's events until RAGFlow ends a completion, at
 * workflow_finished (or another terminal event) or at user_inputs (a pause): streamed as SSE
 * frames, or collected into one answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StoredEvent } from '../../../src/io/store/contract';
import type { AppDeps } from '../../deps';
import { openSse } from '../../sse';
import { eventId, followRunEvents } from '../eventStream';
import { collect, newCollector, type ReplyFormat } from '../replies';
import { launchDeps, startRecordedRun } from '../runLauncher';
import type { ChatTurn } from './chatTurn';
import { queuedRunRecorded } from './messageQueue';

const endsReply = (e: StoredEvent): boolean => e.event === 'user_inputs';

/**
 * How a format answers a message its policy did not start at once (messagePolicy.ts): `ack`, the
 * answer of a non-stream request, given at once (absent: the request waits for the turn and
 * answers as for any turn); `queued`, the first SSE frame of a queued message (absent: none).
 */
export interface PolicyReplies {
  ack?(turn: ChatTurn): unknown;
  queued?(turn: ChatTurn): unknown;
}

export async function deliverTurn(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  turn: ChatTurn,
  format: ReplyFormat,
  policy: PolicyReplies = {},
): Promise<unknown> {
  if (turn.queued) {
    void reply.header('x-queue-position', String(turn.queued.position));
    void reply.header('x-run-id', turn.runId);
  }
  if (!format.stream) {
    if ((turn.queued || turn.steered) && policy.ack) return policy.ack(turn);
    // A start Temporal refuses is this request's error.
    if (turn.begun) await startRecordedRun(launchDeps(deps), turn.begun.start);
    const aborted = new AbortController();
    request.raw.on('close', () => {
      if (!reply.sent) aborted.abort();
    });
    // A queued message: its turn is followed once it is recorded.
    if (turn.queued) await queuedRunRecorded({ ...launchDeps(deps), log: deps.log }, turn.runId, aborted.signal);
    const events = followRunEvents(deps.store, turn.runId, { after: turn.after, signal: aborted.signal, stopAfter: endsReply });
    const collected = newCollector();
    for await (const e of events) collect(collected, e, format.withTrace);
    return format.answer(collected);
  }

  // Headers set above go out with the stream's (writeHead merges them).
  for (const [k, v] of Object.entries(reply.getHeaders())) if (k.startsWith('x-')) reply.raw.setHeader(k, v as string);
  const sse = openSse(request, reply, { dataPrefix: format.dataPrefix });
  try {
    const announced = turn.begun?.announcement;
    if (turn.queued) {
      const frame = policy.queued?.(turn);
      if (frame) sse.send(frame);
      await queuedRunRecorded({ ...launchDeps(deps), log: deps.log }, turn.runId, sse.signal);
    }
    const events = (async function* () {
      // A start Temporal refuses fails the run and throws before any event: the stream ends with the error.
      if (turn.begun) await startRecordedRun(launchDeps(deps), turn.begun.start);
      if (announced) yield announced;
      const after = announced ? { seq: announced.seq, sub: announced.sub } : turn.after;
      // A reader resuming a run (a form answered) checks its row first; a new turn has nothing to ask yet.
      yield* followRunEvents(deps.store, turn.runId, { after, signal: sse.signal, stopAfter: endsReply, checkRunFirst: !announced && after !== null });
    })();
    const collected = newCollector();
    for await (const e of events) {
      collect(collected, e, format.withTrace);
      const frame = format.frame(e, collected);
      if (frame) sse.send(frame, eventId(e));
    }
    const last = format.last(collected);
    if (last && !sse.signal.aborted) sse.send(last);
    sse.done();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    deps.log.error('completion stream failed', { runId: turn.runId, error: message });
    sse.send({ code: 100, message, data: false });
    sse.done();
  }
  return reply;
}
