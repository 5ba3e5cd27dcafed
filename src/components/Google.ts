/** Google: web search through Google's search API. Params follow RAGFlow's GoogleParam. */
import { z } from 'zod';
import { executionParamsShape, notRunnableYet, num, str } from './common';
import type { ComponentDef } from './types';

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
  thoughts: () => 'Searching the web with Google...',
  run: () => notRunnableYet('Google'),
};
