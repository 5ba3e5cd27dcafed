/** Wikipedia: web search through Wikipedia's API. Params follow RAGFlow's WikipediaParam. */
import { z } from 'zod';
import { executionParamsShape, num, str, paramText } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './types';

const WikipediaParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  language: str('en'),
  top_n: num(10),
});

export type WikipediaParams = z.infer<typeof WikipediaParams>;

export const Wikipedia: ComponentDef<WikipediaParams> = {
  name: 'Wikipedia',
  params: WikipediaParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  tool: {
    meta: () => ({
      name: 'wikipedia_search',
      description: 'Search Wikipedia articles.',
      parameters: { query: { type: 'string', description: 'The search keywords.', default: '{sys.query}', required: true } },
    }),
  },
  thoughts: () => 'Searching the web with Wikipedia...',
  run: (p, ctx) => runToolNode('Wikipedia', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
