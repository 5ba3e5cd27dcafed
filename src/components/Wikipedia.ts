/** Wikipedia: web search through Wikipedia's API. Params follow RAGFlow's WikipediaParam. */
import { z } from 'zod';
import { executionParamsShape, notRunnableYet, num, str } from './common';
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
  thoughts: () => 'Searching the web with Wikipedia...',
  run: () => notRunnableYet('Wikipedia'),
};
