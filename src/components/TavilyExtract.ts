/** TavilyExtract: page extraction through Tavily's API. Params follow RAGFlow's TavilyExtractParam. */
import { z } from 'zod';
import { executionParamsShape, notRunnableYet, str } from './common';
import type { ComponentDef } from './types';

const TavilyExtractParams = z.looseObject({
  ...executionParamsShape,
  api_key: str(''),
  urls: str(''),
  extract_depth: z.preprocess((v) => (v == null || v === '' ? 'basic' : v), z.enum(['basic', 'advanced'], { message: "extract_depth should be 'basic' or 'advanced'" })),
  format: z.preprocess((v) => (v == null || v === '' ? 'markdown' : v), z.enum(['markdown', 'text'], { message: "format should be 'markdown' or 'text'" })),
});

export type TavilyExtractParams = z.infer<typeof TavilyExtractParams>;

export const TavilyExtract: ComponentDef<TavilyExtractParams> = {
  name: 'TavilyExtract',
  params: TavilyExtractParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  thoughts: () => 'Reading the pages...',
  run: () => notRunnableYet('TavilyExtract'),
};
