/**
 * SearXNG: web search through a SearXNG instance (a self-hosted metasearch engine), as a canvas
 * node or as an Agent tool. Params follow RAGFlow's SearXNGParam: `searxng_url` (else the
 * SEARXNG_BASE_URL setting) and `top_n`.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { KEYWORDS, queryParam, searchComponent } from './searchTool';

const SearXNGParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    searxng_url: str(''),
    top_n: positiveInt(10),
  }),
);

export type SearXNGParams = z.infer<typeof SearXNGParams>;

export const SearXNG = searchComponent<SearXNGParams>({
  name: 'SearXNG',
  params: SearXNGParams,
  queryIsInput: true,
  // RAGFlow also offers `searxng_url` to the model; here the instance is the operator's choice
  // only, so a prompt cannot point the worker at another host.
  tool: {
    name: 'searxng_search',
    description: 'Search the web with SearXNG, a privacy-focused metasearch engine that aggregates results from many search engines.',
    parameters: { query: queryParam(KEYWORDS) },
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nSearching with SearXNG for relevant results...`,
});
