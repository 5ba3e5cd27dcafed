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
import { MAX_PAGE } from '../paging';
import { knowledgeOf } from '../services/knowledge';
import { rf } from './datasets';
import { pyRepr, pyTypeName } from '../../src/core/components/pyValues';

const RetrievalBody = z.object({
  question: z.string({ message: '`question` is required.' }),
  dataset_ids: z.array(z.string(), { message: '`dataset_ids` should be a list' }).min(1, '`dataset_ids` is required.'),
  document_ids: z.array(z.string()).optional(),
  page: z.coerce
    .number()
    .max(MAX_PAGE, `page must be less than or equal to ${MAX_PAGE}`)
    .int('page must be an integer')
    .min(1, 'page must be greater than 0')
    .optional(),
  page_size: z.coerce.number().int().min(1).max(100, 'page_size must be less than or equal to 100').optional(),
  // RAGFlow takes both through Python's float() without a range (its tests search with a weight of 10).
  similarity_threshold: z.number().optional(),
  vector_similarity_weight: z.number().optional(),
  top_k: z.coerce.number().int().min(1, '`top_k` must be greater than 0').optional(),
  rerank_id: z.string().nullish(),
  keyword: z.boolean().optional(),
  highlight: z.boolean().optional(),
  metadata_condition: z.looseObject({ logic: z.string().optional(), conditions: z.array(z.record(z.string(), z.unknown())).optional() }).nullish(),
});

/** Python's float() literal: digits with an optional point and exponent (underscores between digits), or inf/nan. */
const PY_FLOAT = /^[+-]?((\d(_?\d)*)?\.?\d(_?\d)*([eE][+-]?\d(_?\d)*)?|\d(_?\d)*\.|inf(inity)?|nan)$/i;

/**
 * `float(req.get(key))` as RAGFlow's retrieval_test does it: numbers and numeric text pass (absent
 * stays absent); anything else fails with Python's exception, which RAGFlow answers as code 100
 * with its repr.
 */
function pythonFloat(raw: Record<string, unknown>, key: string): number | undefined {
  if (!(key in raw)) return undefined;
  const v = raw[key];
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && PY_FLOAT.test(v.trim())) {
    const t = v.trim().replace(/_/g, '').toLowerCase();
    return /inf/.test(t) ? (t.startsWith('-') ? -Infinity : Infinity) : Number(t);
  }
  const message =
    typeof v === 'string'
      ? `ValueError("could not convert string to float: ${pyRepr(v)}")`
      : `TypeError("float() argument must be a string or a real number, not '${pyTypeName(v)}'")`;
  throw new AppError('BAD_REQUEST', message, { ragflowCode: 100 });
}

export async function retrievalPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/api/v1/retrieval',
    { config: { ragflow: true }, schema: { tags: ['datasets'], summary: 'Retrieval test: search datasets like a Retrieval node' } },
    async (request) => {
      // RAGFlow's checks, in its order and words (api/apps/restful_apis/chunk_api.py retrieval_test).
      const raw = (request.body ?? {}) as Record<string, unknown>;
      if (!raw.dataset_ids || (Array.isArray(raw.dataset_ids) && raw.dataset_ids.length === 0)) throw rf(102, '`dataset_ids` is required.');
      if (!Array.isArray(raw.dataset_ids)) throw rf(102, '`dataset_ids` should be a list');
      for (const id of raw.dataset_ids)
        if (typeof id !== 'string' || !(await deps.store.knowledge.datasets.get(request.tenantId, id)))
          throw rf(102, `You don't own the dataset ${String(id)}.`);
      if (!('question' in raw)) throw rf(102, '`question` is required.');
      const question = typeof raw.question === 'string' ? raw.question.trim() : raw.question;
      if (!question) return { code: 0, data: { total: 0, chunks: [], doc_aggs: {} } };
      if (raw.document_ids !== undefined && !Array.isArray(raw.document_ids)) throw rf(102, '`documents` should be a list');
      const weights = {
        similarity_threshold: pythonFloat(raw, 'similarity_threshold'),
        vector_similarity_weight: pythonFloat(raw, 'vector_similarity_weight'),
      };
      const parsed = RetrievalBody.safeParse({ ...raw, ...weights, question: String(question) });
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => ({ path: `$.${i.path.join('.')}`, message: i.message }));
        throw new AppError('BAD_REQUEST', problems.map((p) => p.message).join('; '), { problems });
      }
      const b = parsed.data;
      if (b.document_ids?.length) {
        for (const id of b.document_ids) {
          const doc = await deps.store.knowledge.documents.get(request.tenantId, id);
          if (!doc || !b.dataset_ids.includes(doc.dataset_id)) throw rf(102, `The datasets don't own the document ${id}`);
        }
      }
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
