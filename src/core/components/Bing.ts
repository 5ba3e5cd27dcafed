/** Bing: web search through Bing's search API. Params follow RAGFlow's BingParam. */
import { z } from 'zod';
import { executionParamsShape, num, str } from './common';
import { queryParam, searchComponent } from './searchTool';

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

export const Bing = searchComponent<BingParams>({
  name: 'Bing',
  params: BingParams,
  tool: { name: 'bing_search', description: 'Search the web with Bing.', parameters: { query: queryParam('The search keywords.') } },
  thoughts: () => 'Searching the web with Bing...',
});
