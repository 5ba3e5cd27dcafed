/**
 * TavilySearch: web search through Tavily's API, as a canvas node (query from its params) or as
 * an Agent tool (query from the model). Params follow RAGFlow's TavilySearchParam.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { bool, executionParamsShape, num, str, paramText } from './common';
import { KEYWORDS, oneOf, queryParam, searchComponent } from './searchTool';

const positive = (field: string, def: number) => num(def).refine((n) => Number.isInteger(n) && n > 0, `${field} must be a positive integer`);
const domains = () => z.preprocess((v) => (v == null ? [] : v), z.array(z.string()));

const TavilySearchParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    api_key: str(''),
    query: str('{sys.query}'),
    topic: oneOf('topic', ['general', 'news'], 'general'),
    search_depth: oneOf('search_depth', ['basic', 'advanced'], 'basic'),
    max_results: positive('max_results', 6),
    days: positive('days', 14),
    include_answer: bool(false),
    include_raw_content: bool(false),
    include_images: bool(false),
    include_image_descriptions: bool(false),
    include_domains: domains(),
    exclude_domains: domains(),
  }),
);

export type TavilySearchParams = z.infer<typeof TavilySearchParams>;

export const TavilySearch = searchComponent<TavilySearchParams>({
  name: 'TavilySearch',
  params: TavilySearchParams,
  tool: {
    name: 'tavily_search',
    description:
      'Search the web with Tavily, a search engine built for language models. Start with a specific query about one aspect (fewer than 5 keywords), broaden it if needed, and cross-check sources.',
    parameters: {
      query: queryParam(KEYWORDS),
      topic: { type: 'string', description: 'general (default) or news for recent events.', enum: ['general', 'news'], default: 'general', required: false },
      include_domains: { type: 'array', description: 'Only return results from these domains.', items: { type: 'string' }, default: [], required: false },
      exclude_domains: { type: 'array', description: 'Never return results from these domains.', items: { type: 'string' }, default: [], required: false },
    },
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
});
