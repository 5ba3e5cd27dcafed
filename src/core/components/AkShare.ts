/**
 * AkShare: the latest news of a Chinese A-share stock from East Money, as RAGFlow's akshare call
 * gets them (src/io/tools/akshare.ts), as a canvas node or an Agent tool. Params follow RAGFlow's
 * AkShareParam.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { searchComponent } from './searchTool';

const AkShareParams = lazySchema(() => z.looseObject({ ...executionParamsShape, query: str('{sys.query}'), top_n: positiveInt(10) }));

export type AkShareParams = z.infer<typeof AkShareParams>;

export const AkShare = searchComponent<AkShareParams>({
  name: 'AkShare',
  params: AkShareParams,
  queryIsInput: true,
  outputs: ['formalized_content', 'json'],
  tool: {
    name: 'akshare_stock_news',
    description: 'AkShare retrieves the latest news articles for a given Chinese A-share stock from East Money (东方财富).',
    parameters: { query: { type: 'string', description: "The stock symbol/code to fetch news for, e.g. '600519'.", default: '{sys.query}', required: true } },
  },
  thoughts: (p, ctx) => `Looking up the latest stock news for: ${paramText(ctx, p.query)}`,
});
