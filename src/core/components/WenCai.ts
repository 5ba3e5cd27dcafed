/**
 * WenCai: RAGFlow's iwencai stock screening through pywencai (disabled in RAGFlow itself). It
 * loads and validates; running it fails with COMPONENT_UNSUPPORTED naming the tools to use
 * instead. Params follow RAGFlow's WenCaiParam.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const QUERY_TYPES = ['stock', 'zhishu', 'fund', 'hkstock', 'usstock', 'threeboard', 'conbond', 'insurance', 'futures', 'lccp', 'foreign_exchange'] as const;

const WenCaiParams = lazySchema(() =>
  z.looseObject({ ...executionParamsShape, query: str('{sys.query}'), top_n: positiveInt(10), query_type: oneOf('query_type', QUERY_TYPES, 'stock') }),
);

export type WenCaiParams = z.infer<typeof WenCaiParams>;

export const WenCai = searchComponent<WenCaiParams>({
  name: 'WenCai',
  params: WenCaiParams,
  queryIsInput: true,
  outputs: ['report'],
  tool: {
    name: 'iwencai',
    description:
      'iwencai search: news, announcements, research reports and forums about investments; robo-advisor stock selection; fund selection — by a question or conditions in natural language.',
    parameters: { query: { type: 'string', description: 'The question/conditions to select stocks.', default: '{sys.query}', required: true } },
  },
  thoughts: (p, ctx) => `Pulling live financial data for \`${paramText(ctx, p.query)}\`.`,
});
