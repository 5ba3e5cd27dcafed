/** A completion's reply in RAGFlow's format: its stream events and its non-stream answer. */
import { isEvent } from '../../src/core/engine/runEvents';
import type { StoredEvent } from '../../src/io/store/contract';
import type { Collected, ReplyFormat } from './replies';

/** One event of a RAGFlow completion stream; with `return_trace`, each node_finished carries the trace so far. */
export function ragflowEvent(e: StoredEvent, sessionId: string, c: Collected, withTrace: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    event: e.event,
    message_id: e.message_id,
    created_at: e.created_at,
    task_id: e.task_id,
    data: e.data,
    session_id: sessionId,
  };
  if (withTrace && isEvent(e, 'node_finished')) out.data = { ...e.data, trace: [...c.trace] };
  return out;
}

/** RAGFlow's non-stream answer: `{code: 0, data}`, or code 100 with the run's error. */
export function ragflowAnswer(c: Collected, sessionId: string, runId: string, withTrace: boolean): unknown {
  if (c.error) return { code: 100, message: c.error, data: { session_id: sessionId, task_id: runId } };
  return { code: 0, data: ragflowReply(c, sessionId, withTrace) };
}

/** RAGFlow's non-stream reply body (`data` of `{code: 0, data}`). */
export function ragflowReply(c: Collected, sessionId: string, withTrace: boolean): Record<string, unknown> {
  const base = c.final ?? c.last;
  const event: Record<string, unknown> = base ? { event: base.event, message_id: base.message_id, created_at: base.created_at, task_id: base.task_id } : {};
  const data: Record<string, unknown> = {
    ...(base?.event === 'message_end' || base?.event === 'user_inputs' ? base.data : {}),
    content: c.content,
    reference: c.reference,
  };
  if (c.usage) data.usage = c.usage;
  if (Object.keys(c.structured).length > 0) data.structured = c.structured;
  if (withTrace) data.trace = c.trace;
  return { ...event, session_id: sessionId, data };
}

/** RAGFlow's completion reply to the turn (run `runId` of session `sessionId`). */
export function ragflowFormat(turn: { sessionId: string; runId: string }, req: { stream: boolean; returnTrace: boolean }): ReplyFormat {
  return {
    stream: req.stream,
    dataPrefix: 'data:',
    withTrace: req.returnTrace,
    frame: (e, collected) => ragflowEvent(e, turn.sessionId, collected, req.returnTrace),
    last: () => null,
    answer: (collected) => ragflowAnswer(collected, turn.sessionId, turn.runId, req.returnTrace),
  };
}
