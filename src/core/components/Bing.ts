/**
 * Bing: web or news search through the Bing Web Search API v7 (`/v7.0/search`, `/v7.0/news/search`)
 * or any service speaking it (BING_BASE_URL). Params follow RAGFlow's BingParam (v0.x): `channel`
 * Webpages or News, `api_key` (else BING_API_KEY), `country`, `language`, `top_n`.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { KEYWORDS, oneOf, queryParam, searchComponent } from './searchTool';

const BingParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    api_key: str(''),
    channel: oneOf('channel', ['Webpages', 'News'], 'Webpages'),
    // A market is `language-COUNTRY` (en-CH); both parts are plain codes.
    country: z.preprocess(
      (v) => (v == null || v === '' ? 'CH' : v),
      z.string().regex(/^[A-Za-z]{2}$/, 'country must be a two-letter country code such as CH or US'),
    ),
    language: z.preprocess(
      (v) => (v == null || v === '' ? 'en' : v),
      z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z]{2,4})?$/, 'language must be a language code such as en or zh-hans'),
    ),
    top_n: positiveInt(10),
  }),
);

export type BingParams = z.infer<typeof BingParams>;

export const Bing = searchComponent<BingParams>({
  name: 'Bing',
  params: BingParams,
  queryIsInput: true,
  tool: {
    name: 'bing_search',
    description: 'Search the web with Bing: web pages, or news for current events.',
    parameters: { query: queryParam(KEYWORDS) },
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nSearching the web with Bing...`,
});
