/** DuckDuckGo: web search through DuckDuckGo. Params follow RAGFlow's DuckDuckGoParam. */
import { z } from 'zod';
import { executionParamsShape, notRunnableYet, num, str } from './common';
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
  thoughts: () => 'Searching the web with DuckDuckGo...',
  run: () => notRunnableYet('DuckDuckGo'),
};
