/**
 * The Retrieval executor: searches the run's tenant's datasets and answers RAGFlow's outputs —
 * `formalized_content` (the `kb_prompt` blocks a model reads and cites by `[ID:n]`), `json` and
 * `chunks` (the chunks), `doc_aggs` — and the chunks as the run's reference.
 */
import { AppError } from '../../errors';
import { manualFilter } from '../knowledge/metaFilter';
import { searchKnowledge } from '../knowledge/search';
import { kbPrompt, referenceOf, type RagChunk } from './format';
import type { ToolExecutor } from './executor';
import { memoriesToSearch, retrieveFromMemories } from './memoryRetrieval';

const num = (v: unknown, def: number) =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : def;

export const retrieve: ToolExecutor = async (execution) => {
  const { params, args, tenantId, knowledge, signal, serviceCalls } = execution;
  if (!knowledge) throw new AppError('TOOL_UNAVAILABLE', 'Retrieval has no knowledge store in this process');
  const names = Array.isArray(args.datasets)
    ? args.datasets.map(String)
    : [...((params.dataset_ids as string[] | undefined) ?? []), ...((params.kb_ids as string[] | undefined) ?? [])];
  const memories = memoriesToSearch(params, names);
  if (memories) return retrieveFromMemories(execution, memories);
  const result = await searchKnowledge(
    knowledge,
    {
      tenantId,
      datasets: names,
      question: String(args.query ?? ''),
      topN: num(params.top_n, 8),
      topK: num(params.top_k, 1024),
      similarityThreshold: num(params.similarity_threshold, 0.2),
      vectorWeight: 1 - num(params.keywords_similarity_weight, 0.5),
      rerankId: typeof params.rerank_id === 'string' ? params.rerank_id : null,
      metaFilter: manualFilter(args.meta_data_filter ?? params.meta_data_filter),
    },
    signal,
    serviceCalls,
  );
  const chunks: RagChunk[] = result.chunks.map((c) => ({
    chunk_id: c.id,
    content: c.content,
    doc_id: c.documentId,
    docnm_kwd: c.documentName,
    kb_id: c.datasetId,
    similarity: c.similarity,
    vector_similarity: c.vectorSimilarity,
    term_similarity: c.termSimilarity,
    url: c.url ?? null,
    positions: [c.position],
  }));
  const aggs = result.docAggs.map((a) => ({ ...a }));
  if (chunks.length === 0) {
    const empty = typeof params.empty_response === 'string' ? params.empty_response : '';
    return { text: empty, outputs: { formalized_content: empty, json: [], chunks: [], doc_aggs: [], ...(result.notes.length ? { notes: result.notes } : {}) } };
  }
  const text = kbPrompt(chunks);
  return {
    text,
    outputs: { formalized_content: text, json: chunks, chunks, doc_aggs: aggs, ...(result.notes.length ? { notes: result.notes } : {}) },
    reference: referenceOf(chunks, aggs),
  };
};
