/** Google: web search through Google's search API. Params follow RAGFlow's GoogleParam. */
import { z } from 'zod';
import { executionParamsShape, num, str } from './common';
import { queryParam, searchComponent } from './searchTool';

const GoogleParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  api_key: str(''),
  country: str('us'),
  language: str('en'),
  top_n: num(10),
});

export type GoogleParams = z.infer<typeof GoogleParams>;

export const Google = searchComponent<GoogleParams>({
  name: 'Google',
  params: GoogleParams,
  tool: { name: 'google_search', description: 'Search the web with Google.', parameters: { query: queryParam('The search keywords.') } },
  thoughts: () => 'Searching the web with Google...',
});
