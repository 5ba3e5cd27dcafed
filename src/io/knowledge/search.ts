/**
 * Knowledge search, shared by the Retrieval component's activity and the retrieval-test route:
 * datasets by id or name (tenant-scoped, one embedding model), the query embedded with it,
 * documents narrowed by a metadata filter, candidates from the search backend, hybrid ranking,
 * optional rerank. Pure ranking lives in src/io/knowledge; this is the I/O around it.
 */
import { rank, type RankedChunk } from './hybrid';
import { matchesMeta, type MetaFilter } from './metaFilter';
import { AppError } from '../../errors';
import type { DatasetRecord } from '../store/knowledgeTypes';
import type { Store } from '../store/contract';
import type { ChunkIndex } from './chunkIndex';
import { embedderFor, type EmbeddingSettings } from './embedder';
import type { RerankSettings } from './rerank';
import { embedQuery, rerankReported, type ServiceCallSink } from './serviceCalls';

export interface KnowledgeDeps {
  store: Store;
  index: ChunkIndex;
  embedding: EmbeddingSettings;
  rerank: RerankSettings;
}

export interface KnowledgeQuery {
  tenantId: string;
  /** Dataset ids or names. */
  datasets: string[];
  documentIds?: string[];
  question: string;
  topN: number;
  topK: number;
  similarityThreshold: number;
  /** RAGFlow's `vector_similarity_weight` (the Retrieval's 1 − keywords_similarity_weight). */
  vectorWeight: number;
  rerankId?: string | null;
  metaFilter?: MetaFilter | null;
  page?: number;
}

export interface KnowledgeResult {
  chunks: RankedChunk[];
  docAggs: Array<{ doc_name: string; doc_id: string; count: number }>;
  total: number;
  datasets: DatasetRecord[];
  /** Things the caller should know (a rerank model without an endpoint...). */
  notes: string[];
}

async function resolveDatasets(deps: KnowledgeDeps, tenantId: string, names: string[]): Promise<DatasetRecord[]> {
  if (names.filter(Boolean).length === 0) {
    // A Retrieval with no dataset selected (RAGFlow's templates ship that way) searches every
    // dataset of the tenant, rather than failing the run.
    const all = (await deps.store.knowledge.datasets.list(tenantId, { page: 1, pageSize: 0, orderby: 'create_time', desc: false })).items;
    if (all.length === 0) throw new AppError('TOOL_BAD_REQUEST', 'No dataset is selected, and this tenant has none.');
    const model = all[0]!.embedding_model;
    return all.filter((d) => d.embedding_model === model);
  }
  const found: DatasetRecord[] = [];
  for (const n of [...new Set(names.filter(Boolean))]) {
    const ds = await deps.store.knowledge.datasets.find(tenantId, n);
    if (!ds) throw new AppError('TOOL_BAD_REQUEST', `Dataset(${n}) does not exist.`);
    if (!found.some((d) => d.id === ds.id)) found.push(ds);
  }
  if (found.length === 0) throw new AppError('TOOL_BAD_REQUEST', 'No dataset is selected.');
  if (new Set(found.map((d) => d.embedding_model)).size > 1) throw new AppError('TOOL_BAD_REQUEST', 'Knowledge bases use different embedding models.');
  return found;
}

/** `sink`, when given, is told of each embedding and rerank request made (a run's call traces). */
export async function searchKnowledge(deps: KnowledgeDeps, q: KnowledgeQuery, signal?: AbortSignal, sink?: ServiceCallSink): Promise<KnowledgeResult> {
  const datasets = await resolveDatasets(deps, q.tenantId, q.datasets);
  const question = q.question.replace(/^user[:：\s]*/i, '').trim();
  const notes: string[] = [];
  if (!question) return { chunks: [], docAggs: [], total: 0, datasets, notes };
  let documentIds = q.documentIds;
  if (q.metaFilter) {
    const passing = (
      await deps.store.knowledge.documents.metas(
        q.tenantId,
        datasets.map((d) => d.id),
      )
    )
      .filter((d) => matchesMeta(d.meta_fields, q.metaFilter!))
      .map((d) => d.id);
    documentIds = documentIds ? documentIds.filter((id) => passing.includes(id)) : passing;
  }
  const embedding = await embedQuery(embedderFor(datasets[0]!.embedding_model, deps.embedding), question, signal, sink);
  const candidates = await deps.index.candidates({
    tenantId: q.tenantId,
    datasetIds: datasets.map((d) => d.id),
    documentIds,
    query: question,
    embedding,
    topK: q.topK,
  });
  const page = q.page ?? 1;
  const useRerank = Boolean(q.rerankId) && Boolean(deps.rerank.baseUrl);
  if (q.rerankId && !deps.rerank.baseUrl) notes.push(`rerank model ${q.rerankId} ignored: no RERANK_BASE_URL is configured`);
  const ranked = rank(candidates, {
    query: question,
    vectorWeight: q.vectorWeight,
    similarityThreshold: useRerank ? 0 : q.similarityThreshold,
    page: useRerank ? 1 : page,
    pageSize: useRerank ? Math.max(q.topN * 4, 64) : q.topN,
  });
  if (!useRerank) return { ...ranked, datasets, notes };
  // Reranking replaces the vector side of the score, as RAGFlow combines them.
  const scores = await rerankReported(
    deps.rerank,
    q.rerankId!,
    question,
    ranked.chunks.map((c) => c.content),
    signal,
    sink,
  );
  const reranked = ranked.chunks
    .map((c, i) => ({ ...c, vectorSimilarity: scores[i]!, similarity: q.vectorWeight * scores[i]! + (1 - q.vectorWeight) * c.termSimilarity }))
    .filter((c) => c.similarity >= q.similarityThreshold)
    .sort((a, b) => b.similarity - a.similarity);
  const start = (Math.max(1, page) - 1) * q.topN;
  return { chunks: reranked.slice(start, start + q.topN), docAggs: ranked.docAggs, total: reranked.length, datasets, notes };
}
