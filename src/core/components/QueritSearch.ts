/** QueritSearch: live web search through Querit's API, as a canvas node or an Agent tool. Params follow RAGFlow's QueritSearchParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { searchComponent } from './searchTool';

const strings = () => z.preprocess((v) => (v == null || v === '' ? [] : typeof v === 'string' ? v.split(',').map((s) => s.trim()) : v), z.array(z.string()));

const QueritSearchParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    api_key: str(''),
    count: positiveInt(10),
    chunks_per_doc: z.preprocess(
      (v) => (v === '' || v === undefined ? 3 : v),
      z
        .number({ message: 'Querit chunks_per_doc must be an integer from 1 to 3.' })
        .int()
        .min(1, 'Querit chunks_per_doc must be an integer from 1 to 3.')
        .max(3, 'Querit chunks_per_doc must be an integer from 1 to 3.')
        .nullable(),
    ),
    site_include: strings(),
    site_exclude: strings(),
    time_range: z.preprocess(
      (v) => (v == null ? '' : v),
      z.string().regex(/^([dwmy][1-9][0-9]*|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})?$/, 'Querit time_range must use dN, wN, mN, yN, or YYYY-MM-DDtoYYYY-MM-DD.'),
    ),
    country_include: strings(),
    language_include: strings(),
  }),
);

export type QueritSearchParams = z.infer<typeof QueritSearchParams>;

const list = (description: string) => ({ type: 'array', description, default: [], items: { type: 'string' }, required: false });

export const QueritSearch = searchComponent<QueritSearchParams>({
  name: 'QueritSearch',
  params: QueritSearchParams,
  queryIsInput: true,
  tool: {
    name: 'querit_search',
    description: 'Search the live web with Querit and return the complete Querit API response.',
    parameters: {
      query: { type: 'string', description: 'The search query to execute with Querit.', default: '{sys.query}', required: true },
      count: { type: 'integer', description: 'The maximum number of results to return. Defaults to 10.', default: 10, required: false },
      chunks_per_doc: { type: 'integer', description: 'The number of summary chunks per document. Supports values from 1 to 3.', default: 3, required: false },
      site_include: list('Sites that search results must include.'),
      site_exclude: list('Sites that search results must exclude.'),
      time_range: { type: 'string', description: 'A Querit time range such as d7, w1, m3, y1, or YYYY-MM-DDtoYYYY-MM-DD.', default: '', required: false },
      country_include: list('Return results associated with the specified countries.'),
      language_include: list('Languages that search results must include.'),
    },
  },
  thoughts: (p, ctx) => `Searching Querit for \`${paramText(ctx, p.query)}\`.`,
});
