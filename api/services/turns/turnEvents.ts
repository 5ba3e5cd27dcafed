/**
 * A chat turn's reply as events, for the completion services: a new turn's workflow started
 * first (a run is started once Temporal accepted its workflow, and only then does the client
 * learn its task id, with event 1; shown before the start, an API that died in between left a
 * client holding the id of a run the reconciler then failed: issue 38, item 5), then the run's
 * events until RAGFlow ends a completion: at workflow_finished (or another terminal event) or at
 * user_inputs (a pause).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StoredEvent } from '../../../src/io/store/contract';
import type { AppDeps } from '../../deps';
import { followRunEvents } from '../eventStream';
import { collect, newCollector, type Collected } from '../replies';
import { launchDeps, startRecordedRun } from '../runLauncher';
import type { ChatTurn } from './chatTurn';

const endsReply = (e: StoredEvent): boolean => e.event === 'user_inputs';

/**
 * A streamed reply: a new turn's workflow started (a start Temporal refuses fails the run and
 * throws TEMPORAL_UNAVAILABLE before any event), its first event, then the run's events.
 */
export async function* streamTurn(deps: AppDeps, turn: ChatTurn, signal: AbortSignal): AsyncGenerator<StoredEvent> {
  const announced = turn.begun?.announcement;
  if (turn.begun) await startRecordedRun(launchDeps(deps), turn.begun.start);
  if (announced) yield announced;
  const after = announced ? { seq: announced.seq, sub: announced.sub } : turn.after;
  // A reader resuming a run (a form answered) checks its row first; a new turn has nothing to ask yet.
  yield* followRunEvents(deps.store, turn.runId, { after, signal, stopAfter: endsReply, checkRunFirst: !announced && after !== null });
}

/**
 * A non-stream reply: a new turn's workflow started (a start Temporal refuses is the request's
 * error), then the run's events collected until the reply ends or its client goes away.
 */
export async function collectReply(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, turn: ChatTurn, withTrace: boolean): Promise<Collected> {
  if (turn.begun) await startRecordedRun(launchDeps(deps), turn.begun.start);
  const aborted = new AbortController();
  request.raw.on('close', () => {
    if (!reply.sent) aborted.abort();
  });
  const events = followRunEvents(deps.store, turn.runId, { after: turn.after, signal: aborted.signal, stopAfter: endsReply });
  const collected = newCollector();
  for await (const e of events) collect(collected, e, withTrace);
  return collected;
}
