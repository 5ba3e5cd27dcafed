/**
 * Collects a run's events into what a reply is built from (its text, references, usage, trace,
 * error), as RAGFlow's completion route folds them; each format builds its reply from it
 * (ragflowReplies.ts, openAiReplies.ts).
 */
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

/**
 * How a completion delivers its turn (ragflowReplies.ts, openAiReplies.ts): streamed, each event
 * as a frame (none when null) and a frame after the last; or one answer built from what was
 * collected (it may throw the run's error).
 */
export interface ReplyFormat {
  stream: boolean;
  /** The SSE data prefix: RAGFlow's `data:`, OpenAI's `data: `. */
  dataPrefix: string;
  /** RAGFlow's `return_trace`: collect each node_finished into the trace. */
  withTrace: boolean;
  frame(e: StoredEvent, collected: Collected): unknown;
  last(collected: Collected): unknown;
  answer(collected: Collected): unknown;
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
