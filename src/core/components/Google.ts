/** Google: web search through Google's search API. Params follow RAGFlow's GoogleParam. */
import { z } from 'zod';
import { executionParamsShape, num, str, paramText } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';

const GoogleParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  api_key: str(''),
  country: str('us'),
  language: str('en'),
  top_n: num(10),
});

export type GoogleParams = z.infer<typeof GoogleParams>;

export const Google: ComponentDef<GoogleParams> = {
  name: 'Google',
  params: GoogleParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  tool: {
    meta: () => ({
      name: 'google_search',
      description: 'Search the web with Google.',
      parameters: { query: { type: 'string', description: 'The search keywords.', default: '{sys.query}', required: true } },
    }),
  },
  thoughts: () => 'Searching the web with Google...',
  run: (p, ctx) => runToolNode('Google', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
