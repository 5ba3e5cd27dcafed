/**
 * Wikipedia: searches one language edition and returns the introductions of the best-matching
 * articles, as a canvas node or as an Agent tool. Params follow RAGFlow's WikipediaParam
 * (`language`, `top_n`).
 */
import { z } from 'zod';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { textInputRefs } from './toolInputs';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';

const WikipediaParams = z.looseObject({
  ...executionParamsShape,
  query: str('{sys.query}'),
  // A subdomain of wikipedia.org (`en`, `zh-yue`, `simple`): checked so it cannot change the host.
  language: z.preprocess(
    (v) => (v == null || v === '' ? 'en' : typeof v === 'string' ? v.trim().toLowerCase() : v),
    z
      .string()
      .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, 'language must be a Wikipedia language code such as en, de or zh')
      .max(20),
  ),
  top_n: positiveInt(10),
});

export type WikipediaParams = z.infer<typeof WikipediaParams>;

export const Wikipedia: ComponentDef<WikipediaParams> = {
  name: 'Wikipedia',
  params: WikipediaParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: (p) => textInputRefs(p.query),
  tool: {
    meta: () => ({
      name: 'wikipedia_search',
      description: "Search Wikipedia, the world's largest encyclopedia, and read the introductions of the matching articles.",
      parameters: {
        query: {
          type: 'string',
          description: 'The search keyword: a specific subject that can match an article title.',
          default: '{sys.query}',
          required: true,
        },
      },
    }),
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
  run: (p, ctx) => runToolNode('Wikipedia', ctx, { query: paramText(ctx, p.query) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
