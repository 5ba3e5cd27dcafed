/**
 * SearXNG: web search through a SearXNG instance (a self-hosted metasearch engine), as a canvas
 * node or as an Agent tool. Params follow RAGFlow's SearXNGParam: `searxng_url` (else the
 * SEARXNG_BASE_URL setting) and `top_n`.
 */
import { z } from 'zod';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { textInputRefs } from './toolInputs';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';

const SearXNGParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  searxng_url: str(''),
  top_n: positiveInt(10),
});

export type SearXNGParams = z.infer<typeof SearXNGParams>;

export const SearXNG: ComponentDef<SearXNGParams> = {
  name: 'SearXNG',
  params: SearXNGParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: (p) => textInputRefs(p.query),
  tool: {
    // RAGFlow also offers `searxng_url` to the model; here the instance is the operator's choice
    // only, so a prompt cannot point the worker at another host.
    meta: () => ({
      name: 'searxng_search',
      description: 'Search the web with SearXNG, a privacy-focused metasearch engine that aggregates results from many search engines.',
      parameters: {
        query: {
          type: 'string',
          description: 'The search keywords: the most important terms of the request (synonyms welcome).',
          default: '{sys.query}',
          required: true,
        },
      },
    }),
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nSearching with SearXNG for relevant results...`,
  run: (p, ctx) => runToolNode('SearXNG', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
