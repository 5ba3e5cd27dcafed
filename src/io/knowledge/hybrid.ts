/**
 * Hybrid ranking, shared by every search backend: a candidate's similarity is
 * `vector_weight × vector similarity + (1 − vector_weight) × keyword similarity` (RAGFlow's
 * `vector_similarity_weight`, i.e. 1 − the Retrieval's `keywords_similarity_weight`); candidates
 * under `similarity_threshold` are dropped, the rest ranked, paged and aggregated per document.
 */
import type { ChunkHit } from '../store/knowledgeTypes';
import { termSimilarity, tokenize } from '../text/tokens';

export interface RankedChunk extends ChunkHit {
  termSimilarity: number;
  similarity: number;
}

export interface RankOptions {
  query: string;
  vectorWeight: number;
  similarityThreshold: number;
  page: number;
  pageSize: number;
}

export interface Ranked {
  chunks: RankedChunk[];
  /** Chunks over the threshold, all pages. */
  total: number;
  docAggs: Array<{ doc_name: string; doc_id: string; count: number }>;
}

export function rank(candidates: readonly ChunkHit[], o: RankOptions): Ranked {
  const terms = tokenize(o.query);
  const seen = new Set<string>();
  const scored: RankedChunk[] = [];
  for (const c of candidates) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    const t = termSimilarity(terms, c.content);
    const similarity = o.vectorWeight * Math.max(0, c.vectorSimilarity) + (1 - o.vectorWeight) * t;
    if (similarity >= o.similarityThreshold) scored.push({ ...c, termSimilarity: t, similarity });
  }
  scored.sort((a, b) => b.similarity - a.similarity || a.documentId.localeCompare(b.documentId) || a.position - b.position);
  const aggs = new Map<string, { doc_name: string; doc_id: string; count: number }>();
  for (const c of scored) {
    const a = aggs.get(c.documentId) ?? { doc_name: c.documentName, doc_id: c.documentId, count: 0 };
    a.count += 1;
    aggs.set(c.documentId, a);
  }
  const start = (Math.max(1, o.page) - 1) * o.pageSize;
  return { chunks: scored.slice(start, start + o.pageSize), total: scored.length, docAggs: [...aggs.values()].sort((a, b) => b.count - a.count) };
}
