/**
 * RAGFlow's memory, the I/O around the store (api/db/joint_services/memory_message_service.py):
 * a turn is saved as a raw message embedded with the memory's embedding model; a memory with
 * semantic, episodic or procedural types then has its LLM extract those from the turn with
 * RAGFlow's prompts, each extracted item stored (and embedded) with the raw message as source;
 * search is hybrid (vector + full text) over the memories' messages.
 */
import { AppError } from '../../errors';
import type { ChunkIndex } from './chunkIndex';
import { embedderFor, type EmbeddingSettings } from './embedder';
import { embedQuery, type ServiceCallSink } from './serviceCalls';
import { indexMemoryMessages, memoryCandidates, unindexMemoryMessages } from './memoryIndex';
import { clientFor } from '../llm/client';
import { resolveModel, type LlmSettings } from '../llm/providers';
import { termSimilarity, tokenize } from '../text/tokens';
import type { Store } from '../store/contract';
import { memoryTypeNames, type MemoryMessage, type MemoryRecord, type NewMemoryMessage } from '../store/memoryTypes';
import { formatDate } from '../store/time';
import { assembleSystemPrompt, assembleUserPrompt, parseExtraction, turnContent, typesToExtract } from './memoryPrompts';

export interface MemoryDeps {
  store: Store;
  embedding: EmbeddingSettings;
  /** The knowledge search backend: with OpenSearch, messages are indexed there too (./memoryIndex.ts). */
  index?: ChunkIndex;
}

/** A turn to remember: RAGFlow's `message_dict`. */
export interface Turn {
  userId: string;
  agentId: string;
  sessionId: string;
  userInput: string;
  agentResponse: string;
}

/**
 * Bytes a message counts against its memory, as RAGFlow's `calculate_message_size` measures a
 * Python str (49 bytes + its length, for ASCII) and a list of floats (24 bytes each).
 */
export function messageSize(content: string, embedding: readonly number[]): number {
  return 49 + Buffer.byteLength(content, 'utf8') + 24 * embedding.length;
}

/** Whether a memory extracts anything beyond the raw turn. */
export function extracts(memory: Pick<MemoryRecord, 'memory_type'>): boolean {
  return typesToExtract(memoryTypeNames(memory.memory_type)).length > 0;
}

async function embed(deps: MemoryDeps, model: string, texts: string[], signal?: AbortSignal): Promise<number[][]> {
  if (texts.length === 0) return [];
  return embedderFor(model, deps.embedding).embed(texts, signal);
}

export interface SavedTurn {
  memoryId: string;
  /** The raw message's id (the earlier one when this turn was saved before). */
  messageId: number | null;
  /** False when the turn's key was already saved (a retry) or the memory refused it. */
  saved: boolean;
  /** Whether the memory's LLM has types to extract from it. */
  extract: boolean;
  error?: string;
}

/**
 * Saves `turn` as a raw message into each memory of the tenant named in `memoryIds` (RAGFlow's
 * `queue_save_to_memory_task`, the raw part). With `saveKey`, a memory that already holds it
 * stores nothing: a retried activity saves each turn once.
 */
export async function saveTurn(
  deps: MemoryDeps,
  tenantId: string,
  memoryIds: string[],
  turn: Turn,
  saveKey: string | null,
  signal?: AbortSignal,
): Promise<SavedTurn[]> {
  const memories = await deps.store.memories.getMany(tenantId, [...new Set(memoryIds)]);
  const content = turnContent(turn.userInput, turn.agentResponse);
  const out: SavedTurn[] = [];
  for (const id of [...new Set(memoryIds)]) {
    const memory = memories.find((m) => m.id === id);
    if (!memory) {
      out.push({ memoryId: id, messageId: null, saved: false, extract: false, error: `Memory ${id} not found.` });
      continue;
    }
    const [embedding] = await embed(deps, memory.embd_id, [content], signal);
    const message: NewMemoryMessage = {
      messageType: 'raw',
      sourceId: 0,
      userId: turn.userId,
      agentId: turn.agentId,
      sessionId: turn.sessionId,
      content,
      embedding: embedding!,
      validAt: formatDate(Date.now()),
      invalidAt: null,
      size: messageSize(content, embedding!),
      saveKey,
    };
    const r = await deps.store.memories.messages.save(tenantId, id, [message]);
    if (r.refused) {
      out.push({ memoryId: id, messageId: null, saved: false, extract: false, error: r.refused });
      continue;
    }
    // Indexed on every attempt (indexing replaces): a retry after a failed indexing still indexes.
    await unindexMemoryMessages(deps.index, tenantId, id, r.evicted);
    if (r.messageIds[0] !== undefined) await indexMemoryMessages(deps.index, tenantId, id, [{ messageId: r.messageIds[0], content, embedding: embedding! }]);
    out.push({ memoryId: id, messageId: r.messageIds[0] ?? null, saved: r.saved, extract: extracts(memory) });
  }
  return out;
}

/** An ISO 8601 time as RAGFlow stores it (`YYYY-MM-DD HH:MM:SS`), else `fallback`. */
function ymdHms(value: unknown, fallback: string): string {
  if (typeof value !== 'string' || !value.trim()) return fallback;
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.trim().replace(' ', 'T')}Z`);
  return Number.isFinite(t) ? formatDate(t) : fallback;
}

/** RAGFlow's `extract_by_llm`: the memory's LLM asked with its system prompt, the items it answered. */
export async function extractByLlm(
  llm: LlmSettings,
  memory: MemoryRecord,
  turn: Pick<Turn, 'userInput' | 'agentResponse'>,
  now: number,
  signal?: AbortSignal,
): Promise<Array<{ type: string; content: string; validAt: string; invalidAt: string | null }>> {
  const types = memoryTypeNames(memory.memory_type);
  const system = memory.system_prompt || assembleSystemPrompt(types);
  const conversation = turnContent(turn.userInput, turn.agentResponse);
  const time = formatDate(now);
  const users = memory.user_prompt
    ? [memory.user_prompt, `Conversation: ${conversation}\nConversation Time: ${time}\nCurrent Time: ${time}`]
    : [assembleUserPrompt(conversation, time, time)];
  const model = resolveModel(memory.llm_id, llm);
  let answer: string;
  try {
    const res = await clientFor(model).chat.completions.create(
      {
        model: model.model,
        messages: [{ role: 'system', content: system }, ...users.map((content) => ({ role: 'user' as const, content }))],
        temperature: memory.temperature,
      },
      { signal },
    );
    answer = res.choices[0]?.message?.content ?? '';
  } catch (err) {
    if (signal?.aborted) throw err;
    const status = (err as { status?: number }).status;
    const code = status && status >= 400 && status < 500 && status !== 429 ? 'LLM_BAD_REQUEST' : 'LLM_UNAVAILABLE';
    throw new AppError(code, `Memory extraction with ${memory.llm_id} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = parseExtraction(answer);
  const items: Array<{ type: string; content: string; validAt: string; invalidAt: string | null }> = [];
  for (const [type, list] of Object.entries(parsed)) {
    if (!Array.isArray(list)) continue;
    for (const item of list as Array<Record<string, unknown>>) {
      if (!item || typeof item.content !== 'string' || !item.content.trim()) continue;
      items.push({
        type,
        content: item.content,
        validAt: ymdHms(item.valid_at, time),
        invalidAt: item.invalid_at ? ymdHms(item.invalid_at, '') || null : null,
      });
    }
  }
  return items;
}

/**
 * Extracts from the raw message `sourceId` into its memory and stores the items in place of any
 * an earlier attempt stored (RAGFlow's `save_extracted_to_memory_only`). Returns how many.
 */
export async function extractInto(
  deps: MemoryDeps & { llm: LlmSettings },
  tenantId: string,
  memoryId: string,
  sourceId: number,
  turn: Turn,
  signal?: AbortSignal,
): Promise<{ extracted: number; note?: string }> {
  const memory = await deps.store.memories.get(tenantId, memoryId);
  if (!memory) return { extracted: 0, note: `Memory '${memoryId}' not found.` };
  if (!extracts(memory)) return { extracted: 0, note: `Memory '${memoryId}' don't need to extract.` };
  const items = await extractByLlm(deps.llm, memory, turn, Date.now(), signal);
  if (items.length === 0) return { extracted: 0, note: 'No memory extracted from raw message.' };
  const vectors = await embed(
    deps,
    memory.embd_id,
    items.map((i) => i.content),
    signal,
  );
  const messages: NewMemoryMessage[] = items.map((item, i) => ({
    messageType: item.type,
    sourceId,
    userId: turn.userId,
    agentId: turn.agentId,
    sessionId: turn.sessionId,
    content: item.content,
    embedding: vectors[i]!,
    validAt: item.validAt,
    invalidAt: item.invalidAt,
    size: messageSize(item.content, vectors[i]!),
  }));
  const r = await deps.store.memories.messages.replaceExtracted(tenantId, memoryId, sourceId, messages);
  await unindexMemoryMessages(deps.index, tenantId, memoryId, r.removed);
  if (r.refused) throw new AppError('BAD_REQUEST', r.refused);
  await indexMemoryMessages(
    deps.index,
    tenantId,
    memoryId,
    r.messageIds.map((messageId, i) => ({ messageId, content: messages[i]!.content, embedding: messages[i]!.embedding })),
  );
  return { extracted: r.messageIds.length };
}

export interface MemoryQuery {
  memoryIds: string[];
  query: string;
  similarityThreshold: number;
  keywordsSimilarityWeight: number;
  topN: number;
  agentId?: string;
  sessionId?: string;
  userId?: string;
}

/**
 * RAGFlow's `query_message`: the query embedded with the first memory's model, candidates by
 * vector and full text, scored `(1 − kw) × vector + kw × keywords` (its weighted-sum fusion),
 * those under the threshold dropped, the best `top_n` returned.
 */
export async function searchMemories(
  deps: MemoryDeps,
  tenantId: string,
  q: MemoryQuery,
  signal?: AbortSignal,
  /** Told of the query's embedding request (a run's call traces), when it is a provider's. */
  sink?: ServiceCallSink,
): Promise<MemoryMessage[]> {
  const memories = await deps.store.memories.getMany(tenantId, q.memoryIds);
  const question = q.query.trim();
  if (memories.length === 0 || !question) return [];
  const embedding = await embedQuery(embedderFor(memories[0]!.embd_id, deps.embedding), question, signal, sink);
  const hits = await memoryCandidates(deps.store, deps.index, {
    tenantId,
    memoryIds: memories.map((m) => m.id),
    embedding,
    query: question,
    agentId: q.agentId,
    sessionId: q.sessionId,
    userId: q.userId,
    limit: Math.max(q.topN * 4, 64),
  });
  const terms = tokenize(question);
  const kw = q.keywordsSimilarityWeight;
  return hits
    .map((h) => ({ h, score: (1 - kw) * Math.max(0, h.vectorSimilarity) + kw * termSimilarity(terms, h.content) }))
    .filter((x) => x.score >= q.similarityThreshold)
    .sort((a, b) => b.score - a.score || b.h.message_id - a.h.message_id)
    .slice(0, q.topN)
    .map(({ h }) => {
      const { vectorSimilarity: _v, ...message } = h;
      return message;
    });
}
