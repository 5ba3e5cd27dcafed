/**
 * DuckDuckGo: web (or news) search without an API key, as a canvas node (query from its params)
 * or as an Agent tool (query and channel from the model). Params follow RAGFlow's
 * DuckDuckGoParam: `channel` is `text` or `news`, `top_n` the number of results.
 */
import { z } from 'zod';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { textInputRefs } from './toolInputs';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';

const DuckDuckGoParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  channel: z.preprocess((v) => (v == null || v === '' ? 'text' : v), z.enum(['text', 'news'], { message: "channel should be 'text' or 'news'" })),
  top_n: positiveInt(10),
});

export type DuckDuckGoParams = z.infer<typeof DuckDuckGoParams>;

export const DuckDuckGo: ComponentDef<DuckDuckGoParams> = {
  name: 'DuckDuckGo',
  params: DuckDuckGoParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: (p) => textInputRefs(p.query),
  tool: {
    meta: () => ({
      name: 'duckduckgo_search',
      description: 'Search the web with DuckDuckGo, a privacy-focused search engine (web pages, or news for current events).',
      parameters: {
        query: {
          type: 'string',
          description: 'The search keywords: the most important terms of the request (synonyms welcome).',
          default: '{sys.query}',
          required: true,
        },
        channel: {
          type: 'string',
          description:
            'general (default) for web pages of any kind; news for real-time updates on politics, sports and major current events from mainstream media.',
          enum: ['general', 'news'],
          default: 'general',
          required: false,
        },
      },
    }),
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
  // As a node the channel is the component's own (`text`/`news`); the executor reads it from params.
  run: (p, ctx) => runToolNode('DuckDuckGo', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
