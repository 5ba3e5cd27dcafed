/**
 * A canvas in the style of RAGFlow's stock research template (agent/templates/
 * stock_market_research_assistant.json) on the Temporal dev server, against local stand-ins of
 * Tavily and Yahoo Finance: an Agent extracting the stock code with TavilySearch and YahooFinance
 * tool calls (scripted model), a Switch on its answer, a YahooFinance node reading the balance
 * sheet, a CodeExec tabulating it, and the Message showing both; the else branch when no stock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dsl } from '../helpers/canvasKit';
import { startToolCanvasHarness, toolCall as tc, type ToolCanvasHarness } from '../helpers/toolCanvasHarness';

let h: ToolCanvasHarness;

beforeAll(async () => {
  h = await startToolCanvasHarness('tenant-stock-research');
});

afterAll(async () => {
  await h?.stop();
});

const run = (title: string, canvas: Record<string, unknown>, query: string) => h.run(title, canvas, query);
const script = (marker: string, replies: Parameters<ToolCanvasHarness['script']>[1]) => h.script(marker, replies);

describe("a canvas in the style of RAGFlow's stock research template", () => {
  // The annual balance sheet comes first in the report; its first column is the latest year.
  const SCRIPT = [
    'def main(input_text: str) -> dict:',
    '    rows = ["| Indicator | Latest |", "|---|---|"]',
    '    for name in ["Total Assets", "Total Debt", "Working Capital"]:',
    '        for line in input_text.splitlines():',
    '            if line.startswith("| " + name + " |"):',
    '                value = float(line.split("|")[2])',
    '                rows.append(f"| {name} (USD) | {value:,.0f} |")',
    '                break',
    '    return {"md_table": "\\n".join(rows)}',
    '',
  ].join('\n');

  function stockCanvas(marker: string): Record<string, unknown> {
    return dsl({
      begin: { name: 'Begin', params: { mode: 'conversational', prologue: 'Hi!' }, downstream: ['Agent:ManyToesBrush'] },
      'Agent:ManyToesBrush': {
        name: 'Agent',
        params: {
          llm_id: 'scripted@OpenAI',
          sys_prompt: `${marker} Extract the stock code from the question; answer only the code or "Not Found".`,
          prompts: [{ role: 'user', content: '{sys.query}' }],
          max_rounds: 3,
          tools: [
            { component_name: 'TavilySearch', name: 'TavilySearch', params: { api_key: '', max_results: 5, query: 'sys.query', include_raw_content: true } },
            { component_name: 'YahooFinance', name: 'YahooFinance', params: { info: true, news: true, stock_code: 'sys.query' } },
          ],
        },
        downstream: ['Switch:FluffyCoinsSell'],
      },
      'Switch:FluffyCoinsSell': {
        name: 'Switch',
        params: {
          conditions: [
            {
              items: [{ cpn_id: 'Agent:ManyToesBrush@content', operator: 'not contains', value: 'Not Found' }],
              logical_operator: 'and',
              to: ['YahooFinance:QuickAdsDig'],
            },
          ],
          end_cpn_ids: ['Message:TwentyBanksLeave'],
        },
        downstream: ['YahooFinance:QuickAdsDig', 'Message:TwentyBanksLeave'],
      },
      'YahooFinance:QuickAdsDig': {
        name: 'YahooFinance',
        params: {
          balance_sheet: true,
          cash_flow_statement: false,
          financials: false,
          history: false,
          info: false,
          news: false,
          outputs: { report: { type: 'string', value: '' } },
          stock_code: 'sys.query',
        },
        downstream: ['CodeExec:LightSheepTrade'],
      },
      'CodeExec:LightSheepTrade': {
        name: 'CodeExec',
        params: {
          arguments: { input_text: 'YahooFinance:QuickAdsDig@report' },
          lang: 'python',
          outputs: { md_table: { type: 'String', value: '' } },
          script: SCRIPT,
        },
        downstream: ['Message:OliveLawsArgue'],
      },
      'Message:OliveLawsArgue': {
        name: 'Message',
        params: { content: ['Company financial statements:\n\n{CodeExec:LightSheepTrade@md_table}\n\nCode: {Agent:ManyToesBrush@content}'] },
      },
      'Message:TwentyBanksLeave': { name: 'Message', params: { content: ['Your query is not supported.'] } },
    });
  }

  it('extracts the code with Tavily and YahooFinance tool calls, then reads the balance sheet and tabulates it', async () => {
    const calls = script('MARK-stock-found', [
      { toolCalls: [tc('t', 'tavily_search_0', { query: 'Apple stock ticker' }), tc('y', 'yahoo_finance_1', { stock_code: 'AAPL' })] },
      { content: 'AAPL' },
    ]);
    const r = await run('stock research', stockCanvas('MARK-stock-found'), "How is Apple's balance sheet?");
    expect(r.result.status, JSON.stringify(r.result.error)).toBe('finished');
    const toolResults = calls[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(toolResults[0]).toContain('Finding 1 about Apple stock ticker.');
    expect(toolResults[1]).toContain('| symbol | AAPL |');
    // The node's stock_code is the bare `sys.query`, as in the template: the question resolves through Yahoo's search.
    expect(h.svc.requestsFor("How is Apple's balance sheet?").map((q) => q.path)).toContain('/yahoo/v1/finance/search');
    expect(r.finished('YahooFinance:QuickAdsDig')!.outputs.report).toContain('| Total Assets | 364980000000 | 352583000000 |');
    expect(r.finished('CodeExec:LightSheepTrade')!.outputs.md_table).toBe(
      '| Indicator | Latest |\n|---|---|\n| Total Assets (USD) | 364,980,000,000 |\n| Total Debt (USD) | 106,629,000,000 |\n| Working Capital (USD) | -23,405,000,000 |',
    );
    expect(r.result.content).toContain('| Total Assets (USD) | 364,980,000,000 |');
    expect(r.result.content).toContain('Code: AAPL');
    expect(Object.values(r.reference?.chunks ?? {}).map((c) => c.url)).toContain('https://example.test/Apple%20stock%20ticker/1');
  });

  it('takes the else branch when the model finds no stock', async () => {
    script('MARK-stock-none', [{ content: 'Not Found' }]);
    const r = await run('stock research none', stockCanvas('MARK-stock-none'), 'How is the weather?');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Your query is not supported.' });
  });
});
