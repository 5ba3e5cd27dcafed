/**
 * OpenAI chat-completions wire format, for the endpoints we serve ourselves: the offline demo
 * model, our OpenAI-compatible API replies, and the scripted model the tests talk to.
 */

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One `chat.completion.chunk`. */
export function chunk(
  id: string,
  model: string,
  created: number,
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  usage?: WireUsage,
): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: usage && Object.keys(delta).length === 0 && finishReason === null ? [] : [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}

/** A whole `chat.completion`. */
export function completion(
  id: string,
  model: string,
  created: number,
  content: string,
  usage: WireUsage,
  extra: Record<string, unknown> = {},
  toolCalls: WireToolCall[] = [],
): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content, ...extra };
  if (toolCalls.length > 0) message.tool_calls = toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } }));
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop', logprobs: null }],
    usage,
  };
}

/** Server-sent event framing OpenAI uses (`data: {...}`). */
export function sse(payload: unknown): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
}

/** Splits text into stream-sized pieces (by words, keeping the spaces). */
export function tokenize(text: string, size = 1): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(''));
  return out;
}

export function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
