/**
 * RAGFlow's dataset search (the retrieval test, api/apps/restful_apis/dataset_api.py): one dataset
 * or several, validated as RAGFlow's `SearchDatasetReq` is, answered in RAGFlow's chunk shape.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { searchKnowledge } from '../../src/io/knowledge/search';
import type { AppDeps } from '../deps';
import { formatPyErrors, INVALID, py, type PyError } from '../pyValidate';
import { jsonObjectBody } from '../ragflowBody';
import { knowledgeOf } from '../services/knowledge';
import { rf } from './knowledgeExtras';

const doc = (summary: string) => ({ config: { ragflow: true } as const, schema: { tags: ['datasets'], summary } });

export async function datasetSearchRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const k = deps.store.knowledge;
  const searchIn = async (request: FastifyRequest, body: Record<string, unknown>, datasetIds: string[]) => {
    const errors: PyError[] = [];
    const v = searchDatasetReq(body, [], errors);
    if (v === INVALID || errors.length > 0) throw rf(101, formatPyErrors(errors));
    const b = v as {
      question: string;
      doc_ids: string[];
      page: number;
      size: number;
      top_k: number;
      similarity_threshold: number;
      vector_similarity_weight: number;
      rerank_id: string | null;
    };
    for (const id of datasetIds) if (!(await k.datasets.get(request.tenantId, id))) throw rf(102, 'No authorization.');
    const result = await searchKnowledge(knowledgeOf(deps), {
      tenantId: request.tenantId,
      datasets: datasetIds,
      documentIds: b.doc_ids.length ? b.doc_ids : undefined,
      question: b.question,
      topN: b.size,
      topK: b.top_k,
      similarityThreshold: b.similarity_threshold,
      vectorWeight: b.vector_similarity_weight,
      rerankId: b.rerank_id,
      page: b.page,
    });
    const chunks = result.chunks.map((c) => ({
      chunk_id: c.id,
      content_with_weight: c.content,
      doc_id: c.documentId,
      docnm_kwd: c.documentName,
      kb_id: c.datasetId,
      similarity: c.similarity,
      vector_similarity: c.vectorSimilarity,
      term_similarity: c.termSimilarity,
      positions: [c.position],
      important_kwd: [],
    }));
    return { code: 0, data: { chunks, doc_aggs: result.docAggs, total: result.total, labels: [] } };
  };
  app.post('/api/v1/datasets/:dataset_id/search', doc('Search one dataset (retrieval test)'), async (request) => {
    const body = jsonObjectBody(request);
    const { dataset_id } = request.params as { dataset_id: string };
    return searchIn(request, body, [dataset_id]);
  });
  app.post('/api/v1/datasets/search', doc('Search datasets (retrieval test)'), async (request) => {
    const body = jsonObjectBody(request);
    const ids = body.dataset_ids;
    if (!Array.isArray(ids) || ids.length === 0 || ids.some((x) => typeof x !== 'string'))
      throw rf(
        101,
        Array.isArray(ids) && ids.length === 0
          ? 'Field: <dataset_ids> - Message: <List should have at least 1 item after validation, not 0>'
          : 'Field: <dataset_ids> - Message: <Field required>',
      );
    return searchIn(request, body, ids as string[]);
  });
}

const searchDatasetReq = py.model(
  'SearchDatasetReq',
  {
    question: {
      v: py.pipe(py.str(), (v, loc, errors, input) => {
        const s = (v as string).trim();
        if (!s) {
          errors.push({ loc, msg: 'String should have at least 1 character', input });
          return INVALID;
        }
        return s;
      }),
      required: true,
    },
    doc_ids: { v: py.list(py.str()), default: () => [] },
    page: { v: py.int({ ge: 1 }), default: 1 },
    size: { v: py.int({ ge: 1 }), default: 30 },
    top_k: { v: py.int({ ge: 1 }), default: 1024 },
    similarity_threshold: { v: py.float({ ge: 0, le: 1 }), default: 0 },
    vector_similarity_weight: { v: py.float({ ge: 0, le: 1 }), default: 0.3 },
    rerank_id: { v: py.nullable(py.str()), default: null },
  },
  { extra: 'ignore' },
);
