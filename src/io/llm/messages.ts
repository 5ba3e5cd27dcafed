/**
 * Messages on their way to the model: stored-blob markers expanded (large tool results stay out
 * of workflow history), our message shape mapped onto OpenAI's, and streamed tool-call fragments
 * put back together.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage, ToolCallRequest } from '../../core/components/callContracts';
import { BLOB_MARKER } from '../../core/components/blobs';
import { FILE_MARKER } from '../../core/components/files';
import type { FileStore } from '../store/fileTypes';
import type { Store } from '../store/contract';

/** A message on its way to the model: images (data URIs) go as `image_url` parts. */
export interface ModelMessage extends ChatMessage {
  images?: string[];
}

/** A prompt that rendered `{sys.files}` holds the markers as a JSON list: read as the files one after another. */
const MARKER_LIST = /\[\s*"⟦file:[A-Za-z0-9_-]+⟧"(?:\s*,\s*"⟦file:[A-Za-z0-9_-]+⟧")*\s*\]/g;

/**
 * Replaces file markers with what the model reads of the file: a document's parsed text, and for
 * an image nothing in the text but an `image_url` part (a data URI) on the user message (RAGFlow
 * passes images with the last user message).
 */
export async function expandFiles(files: FileStore, messages: ChatMessage[]): Promise<ModelMessage[]> {
  const ids = new Set<string>();
  for (const m of messages) for (const match of m.content.matchAll(FILE_MARKER)) ids.add(match[1]!);
  if (ids.size === 0) return messages;
  const metas = await files.metasById([...ids]);
  const dataUris = new Map<string, string>();
  for (const meta of metas.values()) {
    if (!meta.mime_type.includes('image')) continue;
    const bytes = await files.contentById(meta.id);
    if (bytes) dataUris.set(meta.id, `data:${meta.mime_type};base64,${Buffer.from(bytes).toString('base64')}`);
  }
  const out: ModelMessage[] = [];
  const orphanImages: string[] = [];
  for (const m of messages) {
    const images: string[] = [];
    const content = m.content
      .replace(MARKER_LIST, (list) => [...list.matchAll(FILE_MARKER)].map((x) => x[0]).join('\n\n'))
      .replace(FILE_MARKER, (_all, id: string) => {
        const meta = metas.get(id);
        if (!meta) return `[file ${id} is no longer available]`;
        const uri = dataUris.get(id);
        if (uri) {
          if (!images.includes(uri)) images.push(uri);
          return '';
        }
        return meta.text ?? `[${meta.name}: no text could be read from this file]`;
      });
    if (images.length > 0 && m.role !== 'user') orphanImages.push(...images);
    out.push({ ...m, content, ...(images.length > 0 && m.role === 'user' ? { images } : {}) });
  }
  if (orphanImages.length > 0) {
    const last = out.map((m) => m.role).lastIndexOf('user');
    if (last >= 0) out[last] = { ...out[last]!, images: [...(out[last]!.images ?? []), ...orphanImages.filter((u) => !out[last]!.images?.includes(u))] };
  }
  return out;
}

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

export function toOpenAiMessages(messages: ModelMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    if (m.role === 'user' && m.images && m.images.length > 0)
      return {
        role: 'user',
        content: [{ type: 'text', text: m.content }, ...m.images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))],
      };
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
