/**
 * Jin10 client: Jin10's open data API (`GET {JIN10_BASE_URL}/flash|calendar/<datatype>|<symbols
 * datatype>|news`, default https://open-data-api.jin10.com/data-api, key in the `secret-key`
 * header) for RAGFlow's four `type`s. RAGFlow sends the filters (`contain`, `filter`, `codes`) as a
 * JSON body on a GET; here they travel as query parameters. Symbols and quotes get RAGFlow's
 * readable column names; everything comes back as a markdown table (`content`).
 */
import { AppError } from '../../errors';
import type { ToolExecutor } from './executor';
import { queryOf, requireCredential, serviceBase, textParam } from './search';
import { fetchJson } from './webHttp';
import { markdownTable } from './yahooTables';

type Row = Record<string, unknown>;

const SYMBOL_NAMES: Record<string, string> = { c: 'Commodity Code', e: 'Stock Exchange', n: 'Commodity Name', t: 'Commodity Type' };
const QUOTE_NAMES: Record<string, string> = {
  a: 'Selling Price',
  b: 'Buying Price',
  c: 'Commodity Code',
  e: 'Stock Exchange',
  h: 'Highest Price',
  hc: 'Yesterday’s Closing Price',
  l: 'Lowest Price',
  o: 'Opening Price',
  p: 'Latest Price',
  t: 'Market Quote Time',
};

const renamed = (rows: Row[], names: Record<string, string>) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [names[k] ?? k, v])));

function table(rows: Row[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return markdownTable(
    ['', ...cols],
    rows.map((r, i) => [i, ...cols.map((c) => (typeof r[c] === 'object' && r[c] !== null ? JSON.stringify(r[c]) : r[c]))]),
  );
}

export const jin10: ToolExecutor = async (x) => {
  if (!queryOf(x.args)) return { text: '', outputs: { content: '', formalized_content: '' } };
  const key = requireCredential(x, 'Jin10', 'secret_key', ['JIN10_SECRET_KEY']);
  const base = serviceBase(x.env, ['JIN10_BASE_URL'], 'https://open-data-api.jin10.com/data-api');
  const p = (n: string, def: string) => textParam(x.params, n) || def;
  const type = p('type', 'flash');
  const filters = { ...(p('contain', '') ? { contain: p('contain', '') } : {}), ...(p('filter', '') ? { filter: p('filter', '') } : {}) };
  const [path, params]: [string, Record<string, string>] =
    type === 'calendar'
      ? [`/calendar/${p('calendar_datatype', 'data')}`, { category: p('calendar_type', 'cj') }]
      : type === 'symbols'
        ? [
            `/${p('symbols_datatype', 'symbols')}`,
            { type: p('symbols_type', 'GOODS'), ...(p('symbols_datatype', 'symbols') === 'quotes' ? { codes: 'BTCUSD' } : {}) },
          ]
        : type === 'news'
          ? ['/news', filters]
          : ['/flash', { category: p('flash_type', '1'), ...filters }];
  const res = (await fetchJson(`${base}${path}`, {
    params,
    headers: { 'secret-key': key },
    signal: x.signal,
    env: x.env,
    service: 'Jin10',
    secrets: [key],
  })) as {
    status?: number;
    message?: string;
    data?: unknown;
  } | null;
  if (res?.status !== undefined && res.status !== 200) {
    const kind = res.status === 401 || res.status === 403 ? 'TOOL_AUTH' : res.status === 429 || res.status >= 500 ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST';
    throw new AppError(kind, `Jin10 answered status ${res.status}: ${res.message ?? ''}`.trim());
  }
  const data = (Array.isArray(res?.data) ? res.data : []) as Row[];
  let content: string;
  if (type === 'flash') content = table(data.map((i) => ({ content: (i.data as Row | undefined)?.content ?? '' })));
  else if (type === 'symbols') content = table(renamed(data, p('symbols_datatype', 'symbols') === 'quotes' ? QUOTE_NAMES : SYMBOL_NAMES));
  else content = table(data);
  return { text: content, outputs: { content, formalized_content: content } };
};
