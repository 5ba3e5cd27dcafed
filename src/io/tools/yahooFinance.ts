/**
 * YahooFinance client: the JSON endpoints RAGFlow's `yfinance` library calls on
 * query{1,2}.finance.yahoo.com (YAHOOFINANCE_BASE_URL) — a session cookie (YAHOOFINANCE_COOKIE_URL,
 * default https://fc.yahoo.com) and a crumb (`/v1/test/getcrumb`) first, then per the params:
 * `info` (quoteSummary profile, price and key statistics), `history` (chart, one month of daily
 * bars), `financials` (quoteSummary calendarEvents: RAGFlow prints the calendar there),
 * `income_stmt`, `balance_sheet`, `cash_flow_statement` (fundamentals-timeseries, annual and
 * quarterly) and `news` (search). The `report` is markdown sections as RAGFlow writes them
 * (`# Information:`, `# Balance sheet:`...), statements with yfinance's row names ("Total Assets").
 */
import { AppError } from '../../errors';
import { guardedFetch } from '../net';
import type { ToolExecution, ToolExecutor } from './executor';
import { queryOf, serviceBase } from './search';
import { fetchJson, fetchText, statusError, trusting, USER_AGENT } from './webHttp';
import { INCOME, BALANCE, CASH_FLOW, markdownTable, statementTable, type Series } from './yahooTables';

type Json = Record<string, unknown>;

interface Session {
  cookie: string;
  crumb: string;
  at: number;
}

const sessions = new Map<string, Session>();
const SESSION_MS = 30 * 60_000;

async function session(x: ToolExecution, base: string, fresh = false): Promise<Session> {
  const cached = sessions.get(base);
  if (cached && !fresh && Date.now() - cached.at < SESSION_MS) return cached;
  const cookieUrl = serviceBase(x.env, ['YAHOOFINANCE_COOKIE_URL'], 'https://fc.yahoo.com');
  // fc.yahoo.com answers 404 and sets the cookie: only the cookie matters.
  const res = await guardedFetch(
    cookieUrl,
    { headers: { 'user-agent': USER_AGENT } },
    { env: trusting(cookieUrl, x.env, 'YahooFinance'), service: 'YahooFinance', signal: x.signal, timeoutMs: 30_000, maxRedirects: 0 },
  );
  const setCookie = res.headers['set-cookie'] ?? [];
  const cookie = setCookie
    .map((c) => c.split(';')[0]!.trim())
    .filter(Boolean)
    .join('; ');
  const { text } = await fetchText(`${base}/v1/test/getcrumb`, { headers: cookie ? { cookie } : {}, signal: x.signal, env: x.env, service: 'YahooFinance' });
  const crumb = text.trim();
  if (!crumb || crumb.includes('<') || crumb.length > 64)
    throw new AppError('TOOL_UNAVAILABLE', 'YahooFinance did not hand out a crumb (a consent page or a block); try again later');
  const s = { cookie, crumb, at: Date.now() };
  sessions.set(base, s);
  return s;
}

async function yahoo(x: ToolExecution, base: string, path: string, params: Record<string, string>): Promise<Json> {
  for (let attempt = 0; ; attempt++) {
    const s = await session(x, base, attempt > 0);
    try {
      return ((await fetchJson(`${base}${path}`, {
        params: { ...params, crumb: s.crumb },
        headers: s.cookie ? { cookie: s.cookie } : {},
        signal: x.signal,
        env: x.env,
        service: 'YahooFinance',
        explain: (status, body) => {
          const detail = /"description"\s*:\s*"([^"]+)"/.exec(body)?.[1];
          // 404 "Quote not found" / "No data found": the symbol, not the service.
          if (status === 404)
            return new AppError('TOOL_BAD_REQUEST', `YahooFinance: ${detail ?? 'no data found'} for ${params.symbol ?? path.split('/').pop()}`, { status });
          return statusError('YahooFinance', status, detail ?? body);
        },
      })) ?? {}) as Json;
    } catch (err) {
      // An expired crumb answers 401 "Invalid Crumb": fetch a new one once.
      if (attempt === 0 && err instanceof AppError && err.details.status === 401) continue;
      throw err;
    }
  }
}

/** A quoteSummary value as yfinance's `info` shows it: `raw` numbers, plain strings. */
function plain(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Json;
    if ('raw' in o) return o.raw;
    if (Object.keys(o).length === 0) return null;
    return JSON.stringify(o);
  }
  return Array.isArray(v) ? JSON.stringify(v) : v;
}

async function summary(x: ToolExecution, base: string, symbol: string, modules: string): Promise<Json> {
  const res = await yahoo(x, base, `/v10/finance/quoteSummary/${encodeURIComponent(symbol)}`, { modules, formatted: 'false', lang: 'en-US', region: 'US' });
  const r = res.quoteSummary as { result?: Json[]; error?: { description?: string } } | undefined;
  if (r?.error) throw new AppError('TOOL_BAD_REQUEST', `YahooFinance: ${r.error.description ?? 'quoteSummary failed'} for ${symbol}`);
  return r?.result?.[0] ?? {};
}

async function info(x: ToolExecution, base: string, symbol: string): Promise<string> {
  const r = await summary(x, base, symbol, 'assetProfile,summaryDetail,defaultKeyStatistics,financialData,price,quoteType');
  const flat: Array<[string, unknown]> = [];
  for (const mod of Object.values(r)) {
    if (!mod || typeof mod !== 'object') continue;
    for (const [k, v] of Object.entries(mod as Json)) if (k !== 'maxAge' && !flat.some(([n]) => n === k)) flat.push([k, plain(v)]);
  }
  return markdownTable(
    ['', '0'],
    flat.map(([k, v]) => [k, v]),
  );
}

async function history(x: ToolExecution, base: string, symbol: string): Promise<string> {
  const res = await yahoo(x, base, `/v8/finance/chart/${encodeURIComponent(symbol)}`, {
    range: '1mo',
    interval: '1d',
    includePrePost: 'false',
    events: 'div,splits',
  });
  const chart = res.chart as { result?: Json[]; error?: { description?: string } | null } | undefined;
  if (chart?.error) throw new AppError('TOOL_BAD_REQUEST', `YahooFinance: ${chart.error.description ?? 'chart failed'} for ${symbol}`);
  const r = chart?.result?.[0] ?? {};
  const ts = (r.timestamp as number[] | undefined) ?? [];
  const q = ((r.indicators as { quote?: Json[] } | undefined)?.quote?.[0] ?? {}) as Record<string, Array<number | null>>;
  const events = (r.events ?? {}) as {
    dividends?: Record<string, { amount: number; date: number }>;
    splits?: Record<string, { numerator: number; denominator: number; date: number }>;
  };
  const dividend = (t: number) => Object.values(events.dividends ?? {}).find((d) => d.date === t)?.amount ?? 0;
  const split = (t: number) => {
    const s = Object.values(events.splits ?? {}).find((d) => d.date === t);
    return s ? s.numerator / s.denominator : 0;
  };
  const rows = ts.map((t, i) => [
    new Date(t * 1000).toISOString().slice(0, 10),
    q.open?.[i],
    q.high?.[i],
    q.low?.[i],
    q.close?.[i],
    q.volume?.[i],
    dividend(t),
    split(t),
  ]);
  return markdownTable(['Date', 'Open', 'High', 'Low', 'Close', 'Volume', 'Dividends', 'Stock Splits'], rows);
}

async function calendar(x: ToolExecution, base: string, symbol: string): Promise<string> {
  const r = (await summary(x, base, symbol, 'calendarEvents')).calendarEvents as Json | undefined;
  const rows: unknown[][] = [];
  const earnings = (r?.earnings ?? {}) as Json;
  const date = (v: unknown) => (typeof v === 'number' ? new Date(v * 1000).toISOString().slice(0, 10) : plain(v));
  if (r?.dividendDate !== undefined) rows.push(['Dividend Date', date(plain(r.dividendDate))]);
  if (r?.exDividendDate !== undefined) rows.push(['Ex-Dividend Date', date(plain(r.exDividendDate))]);
  const dates = (earnings.earningsDate as unknown[] | undefined) ?? [];
  if (dates.length) rows.push(['Earnings Date', dates.map((d) => date(plain(d))).join(', ')]);
  for (const [k, label] of [
    ['earningsHigh', 'Earnings High'],
    ['earningsLow', 'Earnings Low'],
    ['earningsAverage', 'Earnings Average'],
    ['revenueHigh', 'Revenue High'],
    ['revenueLow', 'Revenue Low'],
    ['revenueAverage', 'Revenue Average'],
  ] as const)
    if (earnings[k] !== undefined) rows.push([label, plain(earnings[k])]);
  return markdownTable(['', '0'], rows);
}

async function statement(x: ToolExecution, base: string, symbol: string, keys: readonly string[], period: 'annual' | 'quarterly'): Promise<string> {
  const types = keys.map((k) => `${period}${k}`);
  const res = await yahoo(x, base, `/ws/fundamentals-timeseries/v1/finance/timeseries/${encodeURIComponent(symbol)}`, {
    symbol,
    type: types.join(','),
    period1: '493590046',
    period2: String(Math.floor(Date.now() / 1000)),
  });
  const result = ((res.timeseries as { result?: Json[] } | undefined)?.result ?? []) as Json[];
  const series: Series[] = [];
  for (const r of result) {
    const type = ((r.meta as { type?: string[] } | undefined)?.type ?? [])[0];
    if (!type) continue;
    const points = ((r[type] as Array<{ asOfDate?: string; reportedValue?: { raw?: number } } | null> | undefined) ?? []).filter((p) => p !== null);
    series.push({ key: type.slice(period.length), points: points.map((p) => ({ date: String(p!.asOfDate ?? ''), value: p!.reportedValue?.raw ?? null })) });
  }
  return statementTable(series, keys);
}

async function news(x: ToolExecution, base: string, symbol: string): Promise<string> {
  const res = await yahoo(x, base, '/v1/finance/search', { q: symbol, quotesCount: '0', newsCount: '10', enableFuzzyQuery: 'false' });
  const items = (res.news as Json[] | undefined) ?? [];
  const rows = items.map((n) => [
    n.uuid,
    n.title,
    n.publisher,
    n.link,
    typeof n.providerPublishTime === 'number' ? new Date(n.providerPublishTime * 1000).toISOString() : n.providerPublishTime,
    n.type,
  ]);
  return markdownTable(
    ['', 'uuid', 'title', 'publisher', 'link', 'providerPublishTime', 'type'],
    rows.map((r, i) => [i, ...r]),
  );
}

/** A ticker (AAPL, 600519.SS, ^GSPC, EURUSD=X) as is; a company name through Yahoo's search. */
async function symbolOf(x: ToolExecution, base: string, code: string): Promise<string> {
  if (/^[A-Za-z0-9^][A-Za-z0-9.^=-]{0,19}$/.test(code)) return code.toUpperCase();
  const res = await yahoo(x, base, '/v1/finance/search', { q: code, quotesCount: '1', newsCount: '0' });
  const symbol = ((res.quotes as Json[] | undefined) ?? [])[0]?.symbol;
  if (typeof symbol !== 'string') throw new AppError('TOOL_BAD_REQUEST', `YahooFinance: no stock matches "${code.slice(0, 100)}"`);
  return symbol;
}

const on = (v: unknown, def: boolean) => (v === undefined || v === null ? def : v === true || v === 'true');

export const yahooFinance: ToolExecutor = async (x) => {
  const code = queryOf(x.args, ['stock_code', 'query']);
  if (!code) return { text: '', outputs: { report: '' } };
  const base = serviceBase(x.env, ['YAHOOFINANCE_BASE_URL'], 'https://query2.finance.yahoo.com');
  const symbol = await symbolOf(x, base, code);
  const p = x.params;
  const parts: string[] = [];
  if (on(p.info, true)) parts.push(`# Information:\n${await info(x, base, symbol)}\n`);
  if (on(p.history, false)) parts.push(`# History:\n${await history(x, base, symbol)}\n`);
  if (on(p.financials, false)) parts.push(`# Calendar:\n${await calendar(x, base, symbol)}\n`);
  if (on(p.income_stmt, false)) {
    parts.push(`# Income statement:\n${await statement(x, base, symbol, INCOME, 'annual')}\n`);
    parts.push(`# Quarterly income statement:\n${await statement(x, base, symbol, INCOME, 'quarterly')}\n`);
  }
  if (on(p.balance_sheet, false)) {
    parts.push(`# Balance sheet:\n${await statement(x, base, symbol, BALANCE, 'annual')}\n`);
    parts.push(`# Quarterly balance sheet:\n${await statement(x, base, symbol, BALANCE, 'quarterly')}\n`);
  }
  if (on(p.cash_flow_statement, false)) {
    parts.push(`# Cash flow statement:\n${await statement(x, base, symbol, CASH_FLOW, 'annual')}\n`);
    parts.push(`# Quarterly cash flow statement:\n${await statement(x, base, symbol, CASH_FLOW, 'quarterly')}\n`);
  }
  if (on(p.news, true)) parts.push(`# News:\n${await news(x, base, symbol)}\n`);
  const report = parts.join('\n\n');
  return { text: report, outputs: { report } };
};
