/**
 * Retrieval: searches the tenant's datasets (hybrid keyword + vector search), as a canvas node or
 * an Agent tool. Params follow RAGFlow's RetrievalParam. Dataset references (`{begin@kb}`, ids
 * or names) and metadata-filter values are resolved here, in the run; the search itself is the
 * `toolInvoke` activity, whose chunks become the run's citations. With `cross_languages` the
 * question is first translated by the default model and searched in every language at once.
 */
import { z } from 'zod';
import { parseRef } from '../dsl/refs';
import type { PathSegment } from '../dsl/jsonPath';
import type { ActivityCall, LlmChatResult } from './callContracts';
import { bareRef, bool, executionParamsShape, num, paramText, str, unitFloat } from './common';
import { readToolNodeResult, summarize } from './tooling';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const RetrievalParams = lazySchema(() =>
  z.looseObject({
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
  }),
);

export type RetrievalParams = z.infer<typeof RetrievalParams>;

/** Dataset ids or names; entries with `@` (or braces) are variables naming one or more datasets. */
function datasets(p: RetrievalParams, ctx: ComponentContext): string[] {
  const out: string[] = [];
  for (const id of p.dataset_ids.length > 0 ? p.dataset_ids : p.kb_ids) {
    const ref = id.includes('@') || id.startsWith('{') ? parseRef(id) : null;
    if (!ref) {
      out.push(id);
      continue;
    }
    const v = ctx.resolve(ref);
    for (const x of Array.isArray(v) ? v : [v]) if (x !== null && x !== undefined && x !== '') out.push(String(x));
  }
  return out;
}

/** The metadata filter with variables in its values resolved (a fresh object: params stay as written). */
function metaFilter(p: RetrievalParams, ctx: ComponentContext): unknown {
  const f = p.meta_data_filter as { method?: unknown; manual?: unknown } | undefined;
  if (!f || f.method !== 'manual' || !Array.isArray(f.manual)) return f ?? null;
  return { ...f, manual: f.manual.map((c: Record<string, unknown>) => (typeof c?.value === 'string' ? { ...c, value: paramText(ctx, c.value) } : c)) };
}

function search(p: RetrievalParams, ctx: ComponentContext, paramsPath: PathSegment[], query: string): ActivityCall {
  return {
    activity: 'toolInvoke',
    request: { runId: ctx.runId, componentName: 'Retrieval', paramsPath, args: { query, datasets: datasets(p, ctx), meta_data_filter: metaFilter(p, ctx) } },
  };
}

export const Retrieval: ComponentDef<RetrievalParams> = {
  name: 'Retrieval',
  params: RetrievalParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json', 'chunks', 'doc_aggs'],
  inputRefs: () => [],
  paramRefs: (p) => bareRef(['query'], p.query),
  tool: {
    meta: (p) => ({
      name: 'search_my_dateset',
      description: p.description || 'This tool can be utilized for relevant content searching in the datasets.',
      parameters: {
        query: {
          type: 'string',
          description: 'The keywords to search the dataset: the most important words/terms (includes synonyms) from the original request.',
          default: '',
          required: true,
        },
      },
    }),
    call: (p, args, ctx, paramsPath) => search(p, ctx, paramsPath, String(args.query ?? '')),
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nSearching the knowledge base...`,
  run(p, ctx) {
    const query = paramText(ctx, p.query);
    if (p.cross_languages.length > 0 && query.trim()) {
      // RAGFlow searches with the question in several languages: the default model translates it first.
      return {
        kind: 'call',
        call: translation(query, p.cross_languages),
        summary: `translate the query into ${p.cross_languages.join(', ')}`,
        memo: { translating: true },
        inputs: { query },
      };
    }
    return { kind: 'call', call: search(p, ctx, ctx.paramsPath, query), summary: `Retrieval ${summarize(query, 100)}`, inputs: { query } };
  },
  onResult(p, ctx, result, memo) {
    if ((memo as { translating?: boolean } | undefined)?.translating) {
      const original = paramText(ctx, p.query);
      const translated = (result as LlmChatResult).content.trim();
      const query = translated ? `${original}\n${translated}` : original;
      return { kind: 'call', call: search(p, ctx, ctx.paramsPath, query), summary: `Retrieval ${summarize(query, 100)}` };
    }
    return readToolNodeResult(result);
  },
};

/** The model call translating the question (the tenant's default model, as RAGFlow uses). */
function translation(query: string, languages: string[]): ActivityCall {
  const system = [
    'You translate search queries. Translate the query below into each of these languages:',
    languages.join(', '),
    'Answer with the translations only, one per line, without labels, numbering or explanations. Keep names, codes and numbers as they are.',
  ].join('\n');
  return {
    activity: 'llmChat',
    request: {
      llmId: '',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: query },
      ],
      gen: { temperature: 0.2 },
      show: false,
    },
  };
}
