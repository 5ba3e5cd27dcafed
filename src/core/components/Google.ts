/**
 * Google: web search through SerpApi's Google engine (`GET /search.json?engine=google`), as RAGFlow
 * does. Params follow RAGFlow's GoogleParam: `q` (the model's keywords), `start`, `num`, `api_key`
 * (a SerpApi key, else SERPAPI_API_KEY), `country` (gl), `language` (hl). Older canvases' `query`
 * and `top_n` are read too.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, nonNegInt, paramText, positiveInt, str } from './common';
import { searchComponent } from './searchTool';

const optionalCount = () => z.preprocess((v) => (v === '' ? undefined : v), positiveInt(6).optional());

const GoogleParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    q: str('{sys.query}'),
    /** v0.x canvases name the query `query` and the count `top_n`. */
    query: z.string().optional(),
    start: nonNegInt(0),
    num: optionalCount(),
    top_n: optionalCount(),
    api_key: str(''),
    country: z.preprocess(
      (v) => (v == null || v === '' ? 'cn' : v),
      z.string().regex(/^[a-z]{2}$/, 'Google Country should be a two-letter country code such as us or cn'),
    ),
    language: z.preprocess(
      (v) => (v == null || v === '' ? 'en' : v),
      z.string().regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/, 'Google languages should be a language code such as en or zh-cn'),
    ),
  }),
);

export type GoogleParams = z.infer<typeof GoogleParams>;

export const Google = searchComponent<GoogleParams>({
  name: 'Google',
  params: GoogleParams,
  tool: {
    name: 'google_search',
    description:
      "Search the world's information, including webpages, images, videos and more. Google has many special features to help you find exactly what you're looking ...",
    parameters: {
      q: {
        type: 'string',
        description:
          'The search keywords to execute with Google. The keywords should be the most important words/terms(includes synonyms) from the original request.',
        default: '{sys.query}',
        required: true,
      },
      start: { type: 'integer', description: 'The result offset, for pagination (0 is the first page, 10 the second...).', default: 0, required: false },
      num: {
        type: 'integer',
        description: 'The maximum number of results to return (default 6). Better omitted unless more results are needed.',
        default: 6,
        required: false,
      },
    },
  },
  inputTexts: (p) => [p.query ?? p.q],
  nodeArgs: (p, ctx) => ({ q: paramText(ctx, p.query ?? p.q), start: p.start, num: p.num ?? p.top_n ?? 6 }),
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query ?? p.q)}\nLooking for the most relevant articles.`,
});
