/**
 * TuShare: news flashes from TuShare Pro's API filtered by a keyword, as a canvas node (RAGFlow's
 * v0.x component) or an Agent tool (ours). Params follow RAGFlow's TuShareParam; `query` (ours,
 * default the user's question) stands for the upstream text RAGFlow filters by when `keyword` is
 * empty.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const TuShareParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    token: str('xxx'),
    src: oneOf('src', ['sina', 'wallstreetcn', '10jqka', 'eastmoney', 'yuncaijing', 'fenghuang', 'jinrongjie'], 'eastmoney'),
    start_date: str('2024-01-01 09:00:00'),
    // RAGFlow: the time the component is created; empty here means "now" when it runs.
    end_date: str(''),
    keyword: str(''),
  }),
);

export type TuShareParams = z.infer<typeof TuShareParams>;

export const TuShare = searchComponent<TuShareParams>({
  name: 'TuShare',
  params: TuShareParams,
  queryIsInput: true,
  outputs: ['content', 'formalized_content'],
  tool: {
    name: 'tushare_news',
    description: 'TuShare returns recent financial news flashes (Chinese market sources such as East Money or Sina) whose content mentions a keyword.',
    parameters: {
      query: { type: 'string', description: 'The keyword the news must mention, e.g. a company name or stock code.', default: '{sys.query}', required: true },
    },
  },
  thoughts: (p, ctx) => `Reading TuShare news about ${p.keyword || paramText(ctx, p.query)}...`,
});
