/**
 * YahooFinance: a stock's information, price history, calendar, financial statements and news from
 * Yahoo Finance, as a canvas node or an Agent tool; the `report` is markdown. Params follow
 * RAGFlow's YahooFinanceParam (`count` is accepted, and as in RAGFlow selects nothing).
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { bool, executionParamsShape, paramText, str } from './common';
import { searchComponent } from './searchTool';

const YahooFinanceParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    stock_code: str('{sys.query}'),
    info: bool(true),
    history: bool(false),
    count: bool(false),
    financials: bool(false),
    income_stmt: bool(false),
    balance_sheet: bool(false),
    cash_flow_statement: bool(false),
    news: bool(true),
  }),
);

export type YahooFinanceParams = z.infer<typeof YahooFinanceParams>;

export const YahooFinance = searchComponent<YahooFinanceParams>({
  name: 'YahooFinance',
  params: YahooFinanceParams,
  queryIsInput: true,
  outputs: ['report'],
  tool: {
    name: 'yahoo_finance',
    description:
      'The Yahoo Finance is a service that provides access to real-time and historical stock market data. It enables users to fetch various types of stock information, such as price quotes, historical prices, company profiles, and financial news. The API offers structured data, allowing developers to integrate market data into their applications and analysis tools.',
    parameters: { stock_code: { type: 'string', description: 'The stock code or company name.', default: '{sys.query}', required: true } },
  },
  inputTexts: (p) => [p.stock_code],
  nodeArgs: (p, ctx) => ({ stock_code: paramText(ctx, p.stock_code) }),
  thoughts: (p, ctx) => `Pulling live financial data for \`${paramText(ctx, p.stock_code)}\`.`,
});
