/**
 * Retrieval from memories (RAGFlow's `Retrieval._retrieve_memory`): a Retrieval searches the
 * memories in its `memory_ids` when `retrieval_from` says `memory`, or when it names no dataset.
 * The memories' messages are ranked by vector and full-text similarity; the answer is their
 * contents, one per line, as `formalized_content` (RAGFlow's `memory_prompt`).
 */
import { AppError } from '../../errors';
import { searchMemories } from '../knowledge/memoryService';
import { countTokens } from '../text/tokens';
import type { ToolExecution } from './executor';

const num = (v: unknown, def: number) =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : def;

/** RAGFlow's `memory_prompt(message_list, 200000)`: contents while they fit 97% of the budget. */
function memoryPrompt(contents: string[], maxTokens = 200_000): string[] {
  const out: string[] = [];
  let used = 0;
  for (const c of contents) {
    const n = countTokens(c);
    if (used + n > maxTokens * 0.97) break;
    out.push(c);
    used += n;
  }
  return out;
}

/** The memory ids a Retrieval searches, or null when it searches datasets (RAGFlow's order of checks). */
export function memoriesToSearch(params: Record<string, unknown>, datasetNames: string[]): string[] | null {
  const ids = Array.isArray(params.memory_ids) ? params.memory_ids.filter((x): x is string => typeof x === 'string' && x !== '') : [];
  if (params.retrieval_from === 'dataset') return null;
  if (params.retrieval_from === 'memory') return ids;
  if (datasetNames.length > 0) return null;
  return ids.length > 0 ? ids : null;
}

export async function retrieveFromMemories(x: ToolExecution, memoryIds: string[]) {
  const { params, args, tenantId, knowledge, signal, serviceCalls } = x;
  if (!knowledge) throw new AppError('TOOL_UNAVAILABLE', 'Retrieval has no knowledge store in this process');
  const memories = await knowledge.store.memories.getMany(tenantId, memoryIds);
  if (memories.length === 0) throw new AppError('TOOL_BAD_REQUEST', 'No memory is selected.');
  if (new Set(memories.map((m) => m.embd_id)).size > 1) throw new AppError('TOOL_BAD_REQUEST', 'Memory use different embedding models.');
  // A `{variable}` user id is not resolved here: only a literal one filters.
  const userId = typeof params.user_id === 'string' && params.user_id && !/^\{.*\}$/.test(params.user_id) ? params.user_id : undefined;
  const messages = await searchMemories(
    knowledge,
    tenantId,
    {
      memoryIds: memories.map((m) => m.id),
      query: String(args.query ?? ''),
      similarityThreshold: num(params.similarity_threshold, 0.2),
      keywordsSimilarityWeight: num(params.keywords_similarity_weight, 0.5),
      topN: num(params.top_n, 8),
      ...(userId ? { userId } : {}),
    },
    signal,
    serviceCalls,
  );
  if (messages.length === 0) {
    const empty = typeof params.empty_response === 'string' ? params.empty_response : '';
    return { text: empty, outputs: { formalized_content: empty, json: [], chunks: [], doc_aggs: [] } };
  }
  const text = memoryPrompt(messages.map((m) => m.content)).join('\n');
  return { text, outputs: { formalized_content: text, json: messages, chunks: [], doc_aggs: [] } };
}
