/** A completion's reply in OpenAI's format: chat completion chunks, or one chat completion (with RAGFlow's extra `reference`). */
import { chunk as wireChunk, completion as wireCompletion } from '../../src/io/llm/openaiWire';
import { isEvent } from '../../src/core/engine/runEvents';
import { AppError } from '../../src/errors';
import type { StoredEvent } from '../../src/io/store/contract';
import type { Collected, ReplyFormat } from './replies';

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

/** OpenAI's non-stream answer: the chat completion, or the run's error as an error response. */
export function openAiAnswer(c: Collected, sessionId: string, canvasId: string, runId: string): unknown {
  if (c.error) throw new AppError('INTERNAL', c.error, { task_id: runId });
  return openAiReply(c, sessionId, canvasId);
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

function usageOf(c: Collected): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const u = c.usage;
  return { prompt_tokens: u?.prompt_tokens ?? 0, completion_tokens: u?.completion_tokens ?? 0, total_tokens: u?.total_tokens ?? 0 };
}

/** OpenAI's chat completion reply to the turn: `id` the session, `model` the canvas. */
export function openAiFormat(turn: { sessionId: string; canvasId: string; runId: string }, req: { stream: boolean }): ReplyFormat {
  return {
    stream: req.stream,
    dataPrefix: 'data: ',
    withTrace: false,
    frame: (e) => openAiChunkFor(e, turn.sessionId, turn.canvasId),
    last: (collected) => openAiFinalChunk(collected, turn.sessionId, turn.canvasId),
    answer: (collected) => openAiAnswer(collected, turn.sessionId, turn.canvasId, turn.runId),
  };
}
