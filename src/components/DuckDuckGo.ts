/** DuckDuckGo: web search through DuckDuckGo. Params follow RAGFlow's DuckDuckGoParam. */
import { z } from 'zod';
import { executionParamsShape, num, str, paramText } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './types';

const DuckDuckGoParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  channel: str('text'),
  top_n: num(10),
});

export type DuckDuckGoParams = z.infer<typeof DuckDuckGoParams>;

export const DuckDuckGo: ComponentDef<DuckDuckGoParams> = {
  name: 'DuckDuckGo',
  params: DuckDuckGoParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  tool: {
    meta: () => ({
      name: 'duckduckgo_search',
      description: 'Search the web with DuckDuckGo (no key needed).',
      parameters: { query: { type: 'string', description: 'The search keywords.', default: '{sys.query}', required: true } },
    }),
  },
  thoughts: () => 'Searching the web with DuckDuckGo...',
  run: (p, ctx) => runToolNode('DuckDuckGo', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
