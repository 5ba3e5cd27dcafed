/** TavilySearch: web search through Tavily's API. Params follow RAGFlow's TavilySearchParam. */
import { z } from 'zod';
import { bool, executionParamsShape, notRunnableYet, num, str } from './common';
import type { ComponentDef } from './types';

const TavilySearchParams = z.looseObject({
  ...executionParamsShape,
  api_key: str(''),
  query: str('{sys.query}'),
  topic: z.preprocess((v) => (v == null || v === '' ? 'general' : v), z.enum(['general', 'news'], { message: "topic should be 'general' or 'news'" })),
  search_depth: z.preprocess((v) => (v == null || v === '' ? 'basic' : v), z.enum(['basic', 'advanced'], { message: "search_depth should be 'basic' or 'advanced'" })),
  max_results: num(6).refine((n) => Number.isInteger(n) && n > 0, 'max_results must be a positive integer'),
  days: num(14).refine((n) => Number.isInteger(n) && n > 0, 'days must be a positive integer'),
  include_answer: bool(false),
  include_raw_content: bool(false),
  include_images: bool(false),
  include_image_descriptions: bool(false),
  include_domains: z.preprocess((v) => (v == null ? [] : v), z.array(z.string())),
  exclude_domains: z.preprocess((v) => (v == null ? [] : v), z.array(z.string())),
});

export type TavilySearchParams = z.infer<typeof TavilySearchParams>;

export const TavilySearch: ComponentDef<TavilySearchParams> = {
  name: 'TavilySearch',
  params: TavilySearchParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  thoughts: () => 'Searching the web with Tavily...',
  run: () => notRunnableYet('TavilySearch'),
};
