/** Bing: web search through Bing's search API. Params follow RAGFlow's BingParam. */
import { z } from 'zod';
import { executionParamsShape, notRunnableYet, num, str } from './common';
import type { ComponentDef } from './types';

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
  thoughts: () => 'Searching the web with Bing...',
  run: () => notRunnableYet('Bing'),
};
