/**
 * Turns a run's events into the replies of the completion routes: RAGFlow's non-stream answer
 * and OpenAI's chat completion (whole or chunked).
 */
import { chunk as wireChunk, completion as wireCompletion } from '../../src/io/llm/openaiWire';
import { isEvent, shownText, type EventData } from '../../src/core/engine/runEvents';
import type { StoredEvent } from '../../src/io/store/contract';

export interface Collected {
  content: string;
  reference: Record<string, unknown>;
  usage: EventData<'workflow_finished'>['usage'] | null;
  structured: Record<string, unknown>;
  trace: Array<{ component_id: unknown; trace: unknown[] }>;
  /** The event the non-stream reply is built on (RAGFlow: message_end, else user_inputs). */
  final: StoredEvent | null;
  last: StoredEvent | null;
  error: string | null;
}

export function newCollector(): Collected {
  return { content: '', reference: {}, usage: null, structured: {}, trace: [], final: null, last: null, error: null };
}

/** Folds one event into the collected reply, as RAGFlow's completion route does. */
export function collect(c: Collected, e: StoredEvent, withTrace: boolean): void {
  c.last = e;
  if (isEvent(e, 'message')) {
    c.content += shownText(e);
  } else if (isEvent(e, 'message_retry')) {
    // followRunEvents sized it to what this reader was sent of the retried stream.
    const drop = Number(e.data.discard_chars) || 0;
    c.content = c.content.slice(0, Math.max(0, c.content.length - drop));
  }
  if (isEvent(e, 'message_end') && e.data.reference && typeof e.data.reference === 'object') Object.assign(c.reference, e.data.reference);
  if (isEvent(e, 'node_finished')) {
    const outputs = e.data.outputs ?? {};
    if (typeof e.data.component_id === 'string' && 'structured' in outputs) c.structured[e.data.component_id] = outputs.structured;
    if (withTrace) c.trace.push({ component_id: e.data.component_id, trace: [e.data] });
  }
  if (isEvent(e, 'workflow_finished')) c.usage = e.data.usage ?? null;
  if (isEvent(e, 'run_failed')) c.error = String(e.data.error ?? 'the run failed');
  if (e.event === 'message_end' || (e.event === 'user_inputs' && !c.final)) c.final = e;
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

function usageOf(c: Collected): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const u = c.usage;
  return { prompt_tokens: u?.prompt_tokens ?? 0, completion_tokens: u?.completion_tokens ?? 0, total_tokens: u?.total_tokens ?? 0 };
}

/** A whole OpenAI chat completion, with RAGFlow's extra `reference`. */
export function openAiReply(c: Collected, id: string, model: string): Record<string, unknown> {
  const reply = wireCompletion(
    id,
    model,
    Math.floor(Date.now() / 1000),
    c.content,
    usageOf(c),
    Object.keys(c.reference).length > 0 ? { reference: c.reference } : {},
  );
  return reply;
}

/** One OpenAI chunk for a run event, or null when the event has no OpenAI counterpart. */
export function openAiChunkFor(e: StoredEvent, id: string, model: string): Record<string, unknown> | null {
  const created = Math.floor(Date.now() / 1000);
  if (isEvent(e, 'message')) {
    const content = typeof e.data.content === 'string' ? e.data.content : '';
    const piece = e.data.start_to_think ? '<think>' : e.data.end_to_think ? '</think>' : content;
    return piece ? wireChunk(id, model, created, { role: 'assistant', content: piece }) : null;
  }
  if (isEvent(e, 'message_end') && e.data.reference) return wireChunk(id, model, created, { role: 'assistant', content: '', reference: e.data.reference });
  if (isEvent(e, 'run_failed')) return wireChunk(id, model, created, { role: 'assistant', content: `**ERROR**: ${String(e.data.error ?? '')}` });
  return null;
}

export function openAiFinalChunk(c: Collected, id: string, model: string): Record<string, unknown> {
  return wireChunk(id, model, Math.floor(Date.now() / 1000), {}, 'stop', usageOf(c));
}
