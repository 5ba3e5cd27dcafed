/** A completion's reply in OpenAI's format: chat completion chunks, or one chat completion (with RAGFlow's extra `reference`). */
import { chunk as wireChunk, completion as wireCompletion } from '../../src/io/llm/openaiWire';
import { isEvent } from '../../src/core/engine/runEvents';
import { AppError } from '../../src/errors';
import type { StoredEvent } from '../../src/io/store/contract';
import { RetryJoin } from './openAiStream';
import type { Collected, ReplyFormat } from './replies';

/** How this completion's chunks are named: `id` and `created` stay the same across all its chunks, resumed ones too. */
export interface ChunkNaming {
  id: string;
  model: string;
  /** Seconds. */
  created: number;
}

/** One OpenAI chunk for a run event, or null when the event has no OpenAI counterpart (the text through `join`: see openAiStream.ts). */
export function openAiChunkFor(e: StoredEvent, naming: ChunkNaming, join: RetryJoin): Record<string, unknown> | null {
  const { id, model, created } = naming;
  if (isEvent(e, 'message') || e.event === 'message_retry') {
    const piece = join.text(e);
    return piece ? wireChunk(id, model, created, { role: 'assistant', content: piece }) : null;
  }
  if (isEvent(e, 'message_end') && e.data.reference) return wireChunk(id, model, created, { role: 'assistant', content: '', reference: e.data.reference });
  if (isEvent(e, 'run_failed')) return wireChunk(id, model, created, { role: 'assistant', content: `**ERROR**: ${String(e.data.error ?? '')}` });
  return null;
}

export function openAiFinalChunk(c: Collected, naming: ChunkNaming): Record<string, unknown> {
  return wireChunk(naming.id, naming.model, naming.created, {}, 'stop', usageOf(c));
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

/**
 * OpenAI's chat completion reply to the turn: `id` the session, `model` the canvas. A stream's
 * chunks are named once (a resumed stream names them the same, openAiStreamFormat).
 */
export function openAiFormat(turn: { sessionId: string; canvasId: string; runId: string }, req: { stream: boolean }): ReplyFormat {
  return {
    ...openAiStreamFormat({ id: turn.sessionId, model: turn.canvasId, created: Math.floor(Date.now() / 1000) }, new RetryJoin()),
    stream: req.stream,
    answer: (collected) => openAiAnswer(collected, turn.sessionId, turn.canvasId, turn.runId),
  };
}

/** The streamed half of {@link openAiFormat}, for a fresh stream and a resumed one. */
export function openAiStreamFormat(naming: ChunkNaming, join: RetryJoin): ReplyFormat {
  return {
    stream: true,
    dataPrefix: 'data: ',
    withTrace: false,
    frame: (e) => openAiChunkFor(e, naming, join),
    last: (collected) => openAiFinalChunk(collected, naming),
    answer: () => {
      throw new Error('a resumed OpenAI stream has no non-stream answer');
    },
  };
}
