/**
 * RAGFlow's retrieval test (`POST /api/v1/retrieval`): the same search a Retrieval node runs,
 * with RAGFlow's request fields and chunk keys.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { searchKnowledge } from '../../src/io/knowledge/search';
import { manualFilter } from '../../src/io/knowledge/metaFilter';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { ragflowResult } from '../envelope';
import { knowledgeOf } from '../services/knowledge';

const RetrievalBody = z.object({
  question: z.string({ message: '`question` is required.' }),
  dataset_ids: z.array(z.string(), { message: '`dataset_ids` should be a list' }).min(1, '`dataset_ids` is required.'),
  document_ids: z.array(z.string()).optional(),
  page: z.coerce.number().int().min(1).optional(),
  page_size: z.coerce.number().int().min(1).max(1000).optional(),
  similarity_threshold: z.coerce.number().min(0).max(1).optional(),
  vector_similarity_weight: z.coerce.number().min(0).max(1).optional(),
  top_k: z.coerce.number().int().min(1, '`top_k` must be greater than 0').optional(),
  rerank_id: z.string().nullish(),
  keyword: z.boolean().optional(),
  highlight: z.boolean().optional(),
  metadata_condition: z.looseObject({ logic: z.string().optional(), conditions: z.array(z.record(z.string(), z.unknown())).optional() }).nullish(),
});

export async function retrievalPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/api/v1/retrieval',
    { config: { ragflow: true }, schema: { tags: ['datasets'], summary: 'Retrieval test: search datasets like a Retrieval node' } },
    async (request) => {
      const parsed = RetrievalBody.safeParse(request.body ?? {});
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => ({ path: `$.${i.path.join('.')}`, message: i.message }));
        throw new AppError('BAD_REQUEST', problems.map((p) => p.message).join('; '), { problems });
      }
      const b = parsed.data;
      for (const id of b.dataset_ids)
        if (!(await deps.store.knowledge.datasets.get(request.tenantId, id))) throw new AppError('NO_PERMISSION', `You don't own the dataset ${id}.`);
      const conditions = b.metadata_condition?.conditions?.map((c) => ({ key: c.name ?? c.key, op: c.comparison_operator ?? c.op, value: c.value }));
      const result = await searchKnowledge(knowledgeOf(deps), {
        tenantId: request.tenantId,
        datasets: b.dataset_ids,
        documentIds: b.document_ids?.length ? b.document_ids : undefined,
        question: b.question,
        topN: b.page_size ?? 30,
        topK: b.top_k ?? 1024,
        similarityThreshold: b.similarity_threshold ?? 0.2,
        vectorWeight: b.vector_similarity_weight ?? 0.3,
        rerankId: b.rerank_id ?? null,
        metaFilter: conditions?.length ? manualFilter({ method: 'manual', manual: conditions, logic: b.metadata_condition?.logic }) : null,
        page: b.page ?? 1,
      });
      const chunks = result.chunks.map((c) => ({
        id: c.id,
        content: c.content,
        document_id: c.documentId,
        document_keyword: c.documentName,
        dataset_id: c.datasetId,
        similarity: c.similarity,
        vector_similarity: c.vectorSimilarity,
        term_similarity: c.termSimilarity,
        positions: [c.position],
        important_keywords: [],
        highlight: b.highlight ? c.content : undefined,
      }));
      return ragflowResult({ chunks, doc_aggs: result.docAggs, total: result.total });
    },
  );
}
