/**
 * Retrieval: searches the tenant's datasets. Params follow RAGFlow's RetrievalParam; execution
 * arrives with the knowledge issue.
 */
import { z } from 'zod';
import { bareRef, bool, executionParamsShape, num, str, unitFloat, paramText } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './types';

const RetrievalParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  similarity_threshold: unitFloat(0.2),
  keywords_similarity_weight: unitFloat(0.5),
  top_n: num(8).refine((n) => n > 0, 'top_n must be positive'),
  top_k: num(1024),
  dataset_ids: z.preprocess((v) => (v == null ? [] : v), z.array(z.string())),
  kb_ids: z.preprocess((v) => (v == null ? [] : v), z.array(z.string())),
  kb_vars: z.preprocess((v) => (v == null ? [] : v), z.array(z.unknown())),
  rerank_id: str(''),
  empty_response: str(''),
  use_kg: bool(false),
  cross_languages: z.preprocess((v) => (v == null ? [] : v), z.array(z.string())),
  toc_enhance: bool(false),
  meta_data_filter: z.unknown().optional(),
});

export type RetrievalParams = z.infer<typeof RetrievalParams>;

export const Retrieval: ComponentDef<RetrievalParams> = {
  name: 'Retrieval',
  params: RetrievalParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  paramRefs: (p) => bareRef(['query'], p.query),
  tool: {
    meta: (p) => ({
      name: 'search_my_dateset',
      description: p.description || 'Search the knowledge base (datasets) for relevant content.',
      parameters: { query: { type: 'string', description: 'The keywords to search the datasets: the most important terms of the request (synonyms welcome).', default: '', required: true } },
    }),
  },
  thoughts: () => 'Searching the knowledge base...',
  run: (p, ctx) => runToolNode('Retrieval', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
