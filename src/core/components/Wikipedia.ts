/**
 * Wikipedia: searches one language edition and returns the introductions of the best-matching
 * articles, as a canvas node or as an Agent tool. Params follow RAGFlow's WikipediaParam
 * (`language`, `top_n`).
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { queryParam, searchComponent } from './searchTool';

const WikipediaParams = lazySchema(() =>
  z.looseObject({
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
  }),
);

export type WikipediaParams = z.infer<typeof WikipediaParams>;

export const Wikipedia = searchComponent<WikipediaParams>({
  name: 'Wikipedia',
  params: WikipediaParams,
  queryIsInput: true,
  tool: {
    name: 'wikipedia_search',
    description: "Search Wikipedia, the world's largest encyclopedia, and read the introductions of the matching articles.",
    parameters: { query: queryParam('The search keyword: a specific subject that can match an article title.') },
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
});
