/** Bing: web search through Bing's search API. Params follow RAGFlow's BingParam. */
import { z } from 'zod';
import { executionParamsShape, num, str, paramText } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';

const BingParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  api_key: str(''),
  channel: str('Webpages'),
  country: str('CH'),
  language: str('en'),
  top_n: num(10),
});

export type BingParams = z.infer<typeof BingParams>;

export const Bing: ComponentDef<BingParams> = {
  name: 'Bing',
  params: BingParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  tool: {
    meta: () => ({
      name: 'bing_search',
      description: 'Search the web with Bing.',
      parameters: { query: { type: 'string', description: 'The search keywords.', default: '{sys.query}', required: true } },
    }),
  },
  thoughts: () => 'Searching the web with Bing...',
  run: (p, ctx) => runToolNode('Bing', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
