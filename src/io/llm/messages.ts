/**
 * Messages on their way to the model: stored-blob markers expanded (large tool results stay out
 * of workflow history), our message shape mapped onto OpenAI's, and streamed tool-call fragments
 * put back together.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage, ToolCallRequest } from '../../core/components/callContracts';
import { BLOB_MARKER } from '../../core/components/blobs';
import type { Store } from '../store/contract';

/** Replaces blob markers in message contents with the stored text. */
export async function expandBlobs(store: Store, messages: ChatMessage[]): Promise<ChatMessage[]> {
  const ids = new Set<string>();
  for (const m of messages) for (const match of m.content.matchAll(BLOB_MARKER)) ids.add(match[1]!);
  if (ids.size === 0) return messages;
  const texts = await store.blobs.getMany([...ids]);
  return messages.map((m) => ({
    ...m,
    content: m.content.replace(BLOB_MARKER, (_all, id: string) => texts.get(id) ?? `[stored result ${id} is no longer available]`),
  }));
}

export function toOpenAiMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content };
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length > 0) return { role: 'assistant', content: m.content || null, tool_calls: m.tool_calls };
    return { role: m.role, content: m.content } as ChatCompletionMessageParam;
  });
}

export interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

/** Joins streamed tool-call fragments (id and name first, arguments in pieces) by index. */
export class ToolCallAssembler {
  private calls = new Map<number, ToolCallRequest>();

  add(delta: ToolCallDelta): void {
    const index = delta.index ?? this.calls.size;
    const cur = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
    if (delta.id) cur.id = delta.id;
    if (delta.function?.name) cur.name += delta.function.name;
    if (delta.function?.arguments) cur.arguments += delta.function.arguments;
    this.calls.set(index, cur);
  }

  list(): ToolCallRequest[] {
    return [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
  }
}
