/**
 * Jin10: Jin10's financial data (flash news, calendars, symbols and quotes, news), as a canvas node
 * (RAGFlow's v0.x component) or an Agent tool (ours). Params follow RAGFlow's Jin10Param; `query`
 * (ours) is the text that triggers it, as RAGFlow's upstream input did.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const Jin10Params = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    type: oneOf('type', ['flash', 'calendar', 'symbols', 'news'], 'flash'),
    secret_key: str('xxx'),
    flash_type: oneOf('flash_type', ['1', '2', '3', '4', '5'], '1'),
    calendar_type: oneOf('calendar_type', ['cj', 'qh', 'hk', 'us'], 'cj'),
    calendar_datatype: oneOf('calendar_datatype', ['data', 'event', 'holiday'], 'data'),
    symbols_type: oneOf('symbols_type', ['GOODS', 'FOREX', 'FUTURE', 'CRYPTO'], 'GOODS'),
    symbols_datatype: oneOf('symbols_datatype', ['symbols', 'quotes'], 'symbols'),
    contain: str(''),
    filter: str(''),
  }),
);

export type Jin10Params = z.infer<typeof Jin10Params>;

export const Jin10 = searchComponent<Jin10Params>({
  name: 'Jin10',
  params: Jin10Params,
  queryIsInput: true,
  outputs: ['content', 'formalized_content'],
  tool: {
    name: 'jin10',
    description:
      "Jin10 (金十数据) financial data: the latest flash news, the economic calendar, commodity and currency symbols or quotes, or news, as this tool's settings select.",
    parameters: { query: { type: 'string', description: 'What the data is wanted for (the request in a few words).', default: '{sys.query}', required: true } },
  },
  thoughts: (p) => `Reading Jin10 ${p.type} data...`,
});
