/**
 * DuckDuckGo: web (or news) search without an API key, as a canvas node (query from its params)
 * or as an Agent tool (query and channel from the model). Params follow RAGFlow's
 * DuckDuckGoParam: `channel` is `text` or `news`, `top_n` the number of results.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { KEYWORDS, oneOf, queryParam, searchComponent } from './searchTool';

const DuckDuckGoParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    // As a node the channel is the component's own (`text`/`news`); the executor reads it from params.
    channel: oneOf('channel', ['text', 'news'], 'text'),
    top_n: positiveInt(10),
  }),
);

export type DuckDuckGoParams = z.infer<typeof DuckDuckGoParams>;

export const DuckDuckGo = searchComponent<DuckDuckGoParams>({
  name: 'DuckDuckGo',
  params: DuckDuckGoParams,
  queryIsInput: true,
  tool: {
    name: 'duckduckgo_search',
    description: 'Search the web with DuckDuckGo, a privacy-focused search engine (web pages, or news for current events).',
    parameters: {
      query: queryParam(KEYWORDS),
      channel: {
        type: 'string',
        description:
          'general (default) for web pages of any kind; news for real-time updates on politics, sports and major current events from mainstream media.',
        enum: ['general', 'news'],
        default: 'general',
        required: false,
      },
    },
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
});
