/**
 * TavilySearch: web search through Tavily's API, as a canvas node (query from its params) or as
 * an Agent tool (query from the model). Params follow RAGFlow's TavilySearchParam.
 */
import { z } from 'zod';
import { bool, executionParamsShape, num, str, paramText } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';

const TavilySearchParams = z.looseObject({
  ...executionParamsShape,
  api_key: str(''),
  query: str('{sys.query}'),
  topic: z.preprocess((v) => (v == null || v === '' ? 'general' : v), z.enum(['general', 'news'], { message: "topic should be 'general' or 'news'" })),
  search_depth: z.preprocess(
    (v) => (v == null || v === '' ? 'basic' : v),
    z.enum(['basic', 'advanced'], { message: "search_depth should be 'basic' or 'advanced'" }),
  ),
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
  tool: {
    meta: () => ({
      name: 'tavily_search',
      description:
        'Search the web with Tavily, a search engine built for language models. Start with a specific query about one aspect (fewer than 5 keywords), broaden it if needed, and cross-check sources.',
      parameters: {
        query: {
          type: 'string',
          description: 'The search keywords: the most important terms of the request (synonyms welcome).',
          default: '{sys.query}',
          required: true,
        },
        topic: { type: 'string', description: 'general (default) or news for recent events.', enum: ['general', 'news'], default: 'general', required: false },
        include_domains: { type: 'array', description: 'Only return results from these domains.', items: { type: 'string' }, default: [], required: false },
        exclude_domains: { type: 'array', description: 'Never return results from these domains.', items: { type: 'string' }, default: [], required: false },
      },
    }),
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
  run: (p, ctx) => runToolNode('TavilySearch', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
