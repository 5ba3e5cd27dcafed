/**
 * KeenableSearch: web search through Keenable (keyless public tier, or keyed with `api_key`/
 * KEENABLE_API_KEY), as a canvas node or an Agent tool. Params follow RAGFlow's
 * KeenableSearchParam; the model may restrict a search to one `site`.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const KeenableSearchParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    site: str(''),
    api_key: str(''),
    mode: oneOf('mode', ['pro', 'realtime'], 'pro'),
    top_n: positiveInt(10),
  }),
);

export type KeenableSearchParams = z.infer<typeof KeenableSearchParams>;

export const KeenableSearch = searchComponent<KeenableSearchParams>({
  name: 'KeenableSearch',
  params: KeenableSearchParams,
  queryIsInput: true,
  tool: {
    name: 'keenable_search',
    description:
      'Keenable is a web search API built for AI agents. It returns fresh, relevant web results for a query. Use a focused query of the most important terms (and synonyms); optionally restrict to a single site/domain.',
    parameters: {
      query: {
        type: 'string',
        description:
          'The search keywords to execute with Keenable. The keywords should be the most important words/terms(includes synonyms) from the original request.',
        default: '{sys.query}',
        required: true,
      },
      site: { type: 'string', description: "default:''. Restrict results to a single domain, e.g. 'techcrunch.com'.", default: '', required: false },
    },
  },
  nodeArgs: (p, ctx) => ({ query: paramText(ctx, p.query), ...(p.site ? { site: paramText(ctx, p.site) } : {}) }),
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
});
