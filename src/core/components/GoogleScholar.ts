/**
 * GoogleScholar: scholarly literature search, as a canvas node or an Agent tool, through SerpApi's
 * Google Scholar engine (RAGFlow scrapes Scholar with the `scholarly` library). Params follow
 * RAGFlow's GoogleScholarParam, plus `api_key` (a SerpApi key, else SERPAPI_API_KEY).
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { bool, executionParamsShape, paramText, positiveInt, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const year = () => z.preprocess((v) => (v === '' || v === undefined ? null : v), positiveInt(1).nullable());

const GoogleScholarParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    top_n: positiveInt(12),
    sort_by: oneOf('sort_by', ['date', 'relevance'], 'relevance'),
    year_low: year(),
    year_high: year(),
    patents: bool(true),
    api_key: str(''),
  }),
);

export type GoogleScholarParams = z.infer<typeof GoogleScholarParams>;

export const GoogleScholar = searchComponent<GoogleScholarParams>({
  name: 'GoogleScholar',
  params: GoogleScholarParams,
  queryIsInput: true,
  tool: {
    name: 'google_scholar_search',
    description:
      'Google Scholar provides a simple way to broadly search for scholarly literature. From one place, you can search across many disciplines and sources: articles, theses, books, abstracts and court opinions, from academic publishers, professional societies, online repositories, universities and other web sites. Google Scholar helps you find relevant work across the world of scholarly research.',
    parameters: {
      query: {
        type: 'string',
        description:
          'The search keyword to execute with Google Scholar. The keywords should be the most important words/terms(includes synonyms) from the original request.',
        default: '{sys.query}',
        required: true,
      },
    },
  },
  thoughts: (p, ctx) => `Looking for scholarly papers on \`${paramText(ctx, p.query)}\`, prioritising reputable sources.`,
});
