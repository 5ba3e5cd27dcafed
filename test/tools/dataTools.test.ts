/**
 * The finance, utility and web clients of RAGFlow's tool catalog (YahooFinance, DeepL, QWeather,
 * TuShare, Jin10, Crawler, AkShare) against local stand-ins of their services, and WenCai, which
 * this build does not run: what each sends, what it answers, how each service's refusals and rate
 * limits map to TOOL_* errors.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/io/tools/crawler';
import { deeplTranslate } from '../../src/io/tools/deepl';
import type { ToolExecution, ToolExecutor } from '../../src/io/tools/executor';
import { jin10 } from '../../src/io/tools/jin10';
import { qweather } from '../../src/io/tools/qweather';
import { RAGFLOW_TOOL_EXECUTORS } from '../../src/io/tools/ragflowTools';
import { tushareNews } from '../../src/io/tools/tushare';
import { yahooFinance } from '../../src/io/tools/yahooFinance';
import { YAHOO_CRUMB } from '../helpers/dataApiRoutes';
import { failure } from '../helpers/failure';
import { startToolServices, type ToolServices } from '../helpers/toolServices';

let svc: ToolServices;
beforeAll(async () => {
  svc = await startToolServices();
});
afterAll(async () => svc?.stop());

function call(executor: ToolExecutor, x: Partial<ToolExecution>) {
  return executor({ params: {}, args: {}, env: svc.env, signal: new AbortController().signal, tenantId: 't', ...x });
}

async function refused(p: Promise<unknown>, code: string, retryable: boolean, ...secrets: string[]) {
  const e = await failure(p);
  expect({ code: e.code, retryable: e.retryable }).toEqual({ code, retryable });
  for (const s of secrets) expect(e.message).not.toContain(s);
  return e;
}

describe('YahooFinance', () => {
  it('gets a cookie and a crumb, then writes the sections the params select as markdown', async () => {
    const r = await call(yahooFinance, {
      params: { info: true, history: true, financials: true, balance_sheet: true, news: true },
      args: { stock_code: 'aapl' },
    });
    const report = r.outputs.report as string;
    expect(r.text).toBe(report);
    expect(report).toMatch(/^# Information:\n\| {2}\| 0 \|/);
    expect(report).toContain('| regularMarketPrice | 229.87 |');
    expect(report).toContain('# History:\n| Date | Open | High | Low | Close | Volume | Dividends | Stock Splits |');
    expect(report).toContain('| 2025-11-21 | 229.5 | 231 | 228.8 | 229.87 | 39000000 | 0 | 0 |');
    expect(report).toContain('# Calendar:');
    expect(report).toContain('| Earnings Date | 2026-01-29 |');
    // yfinance's row names and one column per date, newest first: what the stock template's CodeExec parses.
    expect(report).toContain('# Balance sheet:\n|  | 2024-09-30 00:00:00 | 2023-09-30 00:00:00 |');
    expect(report).toContain('| Total Assets | 364980000000 | 352583000000 |');
    expect(report).toContain('# Quarterly balance sheet:');
    expect(report).toContain('| AAPL beats estimates | Example Wire |');
    const calls = svc.requests.filter((q) => q.path.startsWith('/yahoo/v10/') || q.path.startsWith('/yahoo/v8/') || q.path.startsWith('/yahoo/ws/'));
    expect(calls.every((q) => q.query.crumb === YAHOO_CRUMB && String(q.headers.cookie).includes('A3='))).toBe(true);
  });

  it('resolves a company name through search; an unknown symbol is a bad request, a 429 is retryable', async () => {
    const r = await call(yahooFinance, { params: { info: true, news: false }, args: { stock_code: 'Apple Inc' } });
    expect(r.text).toContain('| symbol | AAPL |');
    expect((await refused(call(yahooFinance, { args: { stock_code: 'NOPE' } }), 'TOOL_BAD_REQUEST', false)).message).toMatch(
      /Quote not found for symbol: NOPE/,
    );
    await refused(call(yahooFinance, { args: { stock_code: 'RATELIMIT' } }), 'TOOL_UNAVAILABLE', true);
  });
});

describe('DeepL', () => {
  it('sends the text with DeepL-Auth-Key to the pro host, a :fx key to the free host', async () => {
    const pro = await call(deeplTranslate, { params: { auth_key: 'pro-key', source_lang: 'ZH', target_lang: 'EN-US' }, args: { query: '你好' } });
    expect(pro.outputs.formalized_content).toBe('[EN-US] 你好');
    expect(svc.requestsFor('你好')[0]).toMatchObject({ path: '/deepl/v2/translate', json: { text: ['你好'], source_lang: 'ZH', target_lang: 'EN-US' } });
    expect(svc.requestsFor('你好')[0]!.headers.authorization).toBe('DeepL-Auth-Key pro-key');
    const free = await call(deeplTranslate, { env: { ...svc.env, DEEPL_AUTH_KEY: 'abc:fx' }, params: { auth_key: 'xxx' }, args: { query: '早上好' } });
    expect(free.text).toBe('[EN-GB] 早上好');
    expect(svc.requestsFor('早上好')[0]!.path).toBe('/deepl-free/v2/translate');
  });

  it('403 refused, 456 quota used up (not retried), 429 retried', async () => {
    await refused(call(deeplTranslate, { params: { auth_key: 'bad-key' }, args: { query: 'x' } }), 'TOOL_AUTH', false, 'bad-key');
    expect((await refused(call(deeplTranslate, { params: { auth_key: 'k' }, args: { query: 'quota' } }), 'TOOL_BAD_REQUEST', false)).message).toMatch(/quota/);
    await refused(call(deeplTranslate, { params: { auth_key: 'k' }, args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true);
  });
});

describe('QWeather', () => {
  const params = { web_apikey: 'qw-key', lang: 'en' };
  it('looks the city up, then reads now / daily / indices / air for its id', async () => {
    const now = await call(qweather, { params, args: { query: 'Beijing' } });
    expect(JSON.parse(now.text)).toMatchObject({ temp: '6', text: 'Sunny' });
    expect(svc.requestsFor('Beijing')[0]).toMatchObject({ path: '/qweather-geo/v2/city/lookup', query: { key: 'qw-key' } });
    expect(svc.requests.some((q) => q.path === '/qweather/v7/weather/now' && q.query.location === '101010100' && q.query.lang === 'en')).toBe(true);
    expect((await call(qweather, { params: { ...params, time_period: '3d' }, args: { query: 'Beijing' } })).text.split('\n')).toHaveLength(3);
    expect((await call(qweather, { params: { ...params, type: 'indices' }, args: { query: 'Beijing' } })).text).toBe(
      '2026-11-24\nSport: Fair, Dress warmly.\nDressing: Cold, Wear a coat.',
    );
    expect((await call(qweather, { params: { ...params, type: 'airquality' }, args: { query: 'Beijing' } })).text).toContain('"aqi":"42"');
  });

  it("answers QWeather's 404 as text; its 401 code as TOOL_AUTH and 429 as retryable", async () => {
    expect((await call(qweather, { params, args: { query: 'Atlantis' } })).text).toBe('**Error** The queried data or region does not exist.');
    await refused(call(qweather, { params: { web_apikey: 'bad-key' }, args: { query: 'Beijing' } }), 'TOOL_AUTH', false, 'bad-key');
    await refused(call(qweather, { params, args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true, 'qw-key');
  });
});

describe('TuShare and Jin10', () => {
  it("TuShare: posts RAGFlow's news request; keeps the flashes mentioning the keyword", async () => {
    const r = await call(tushareNews, {
      params: { token: 'tushare-token', src: 'eastmoney', start_date: '2026-11-24 09:00:00', end_date: '2026-11-24 10:00:00' },
      args: { query: 'moutai' },
    });
    expect(svc.requests.at(-1)!.json).toEqual({
      api_name: 'news',
      token: 'tushare-token',
      params: { src: 'eastmoney', start_date: '2026-11-24 09:00:00', end_date: '2026-11-24 10:00:00' },
    });
    expect(r.outputs.content).toContain('Kweichow Moutai (600519) opens higher.');
    expect(r.outputs.content).toContain('MOUTAI announces dividend.');
    expect(r.outputs.content).not.toContain('Index futures flat.');
    await refused(call(tushareNews, { params: { token: 'bad-key' }, args: { query: 'x' } }), 'TOOL_AUTH', false, 'bad-key');
    await refused(call(tushareNews, { params: { token: 'tushare-token', src: 'sina' }, args: { query: 'x' } }), 'TOOL_UNAVAILABLE', true);
  });

  it('Jin10: flash, calendar and quotes with the secret-key header; a refused key is TOOL_AUTH', async () => {
    const flash = await call(jin10, { params: { secret_key: 'jin10-key', flash_type: '2' }, args: { query: 'go' } });
    expect(flash.outputs.content).toContain('Flash 1 (category 2)');
    expect(svc.requests.at(-1)!.headers['secret-key']).toBe('jin10-key');
    expect((await call(jin10, { params: { secret_key: 'jin10-key', type: 'calendar' }, args: { query: 'go' } })).text).toContain('| CPI |');
    const quotes = await call(jin10, { params: { secret_key: 'jin10-key', type: 'symbols', symbols_datatype: 'quotes' }, args: { query: 'go' } });
    expect(quotes.text).toContain('Latest Price');
    expect(svc.requests.at(-1)!.query.codes).toBe('BTCUSD');
    await refused(call(jin10, { params: { secret_key: 'bad-key' }, args: { query: 'go' } }), 'TOOL_AUTH', false, 'bad-key');
  });
});

// Chromium (Debian's package, which CI installs) renders pages; without it Crawler reads them as served.
const chromium = existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
if (!chromium) console.warn('[dataTools] Crawler rendering test skipped: no Chromium at /usr/bin/chromium (CHROMIUM_PATH)');

describe('Crawler', () => {
  const allow = () => ({ ...svc.env, NETWORK_ALLOW_HOSTS: '127.0.0.1' });
  it('returns markdown (default), cleaned html or text; scripts and styles dropped; redirects followed', async () => {
    const md = await call(crawl, { env: allow(), args: { query: `${svc.url}/pages/moved` } });
    expect(md.outputs.formalized_content).toBe('# Durable workflows\n\nTemporal keeps [state](https://temporal.io).\n\n-   retries\n-   timers');
    // Served as is (no rendering) from here on: the same page, faster.
    const h = await call(crawl, { env: { ...allow(), CRAWLER_RENDER_JS: '0' }, params: { extract_type: 'html' }, args: { query: `${svc.url}/pages/article` } });
    expect(h.text).toContain('<h1>Durable workflows</h1>');
    expect(h.text).not.toMatch(/track\(\)|color:red|enable js/);
    const t = await call(crawl, {
      env: { ...allow(), CRAWLER_RENDER_JS: '0' },
      params: { extract_type: 'content' },
      args: { query: `${svc.url}/pages/article` },
    });
    expect(t.text).toContain('Temporal keeps state.');
    expect((await call(crawl, { env: allow(), args: { query: `${svc.url}/pages/plain` } })).text).toBe('just text');
  });

  it.skipIf(!chromium)('renders a page with its scripts in Chromium (CRAWLER_RENDER_JS=0 reads it as served)', async () => {
    const rendered = await call(crawl, { env: allow(), args: { query: `${svc.url}/pages/scripted` } });
    expect(rendered.text).toBe('## Rendered by script\n\nOnly a browser sees this.');
    const served = await call(crawl, { env: { ...allow(), CRAWLER_RENDER_JS: '0' }, args: { query: `${svc.url}/pages/scripted` } });
    expect(served.text).toBe('Loading…');
  });

  it('goes through the network guard: a loopback page without NETWORK_ALLOW_HOSTS, a redirect to metadata, a non-http URL are refused', async () => {
    expect((await refused(call(crawl, { args: { query: `${svc.url}/pages/article` } }), 'TOOL_BAD_REQUEST', false)).message).toMatch(/NETWORK_ALLOW_HOSTS/);
    expect((await refused(call(crawl, { env: allow(), args: { query: `${svc.url}/pages/to-metadata` } }), 'TOOL_BAD_REQUEST', false)).message).toMatch(
      /redirect to http:\/\/169\.254\.169\.254/,
    );
    await refused(call(crawl, { env: allow(), args: { query: 'file:///etc/passwd' } }), 'TOOL_BAD_REQUEST', false);
  });
});

describe('AkShare and WenCai', () => {
  it("AkShare: East Money's search JSONP, as akshare calls it; RAGFlow's rendering of the top_n news", async () => {
    const r = await call(RAGFLOW_TOOL_EXECUTORS.AkShare!, { params: { top_n: 2 }, args: { query: '600519' } });
    const [req] = svc.requestsFor('600519');
    expect(req!.path).toBe('/eastmoney/search/jsonp');
    expect(JSON.parse(req!.query.param!)).toMatchObject({
      keyword: '600519',
      type: ['cmsArticleWebOld'],
      param: { cmsArticleWebOld: { pageIndex: 1, pageSize: 10 } },
    });
    expect(r.text).toBe(
      [
        '<a href="http://finance.eastmoney.com/a/202611240000.html">600519 新闻 1</a>\n 新闻内容: 第1条：600519 公告内容 更多 \n发布时间:2026-11-20 09:30:00 \n文章来源: 东方财富网',
        '<a href="http://finance.eastmoney.com/a/202611240001.html">600519 新闻 2</a>\n 新闻内容: 第2条：600519 公告内容 更多 \n发布时间:2026-11-21 09:31:00 \n文章来源: 东方财富网',
      ].join('\n\n'),
    );
    expect(r.outputs.json).toHaveLength(2);
    await refused(call(RAGFLOW_TOOL_EXECUTORS.AkShare!, { args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true);
  });

  it('WenCai fails with COMPONENT_UNSUPPORTED naming what to use instead', async () => {
    const e = await refused(call(RAGFLOW_TOOL_EXECUTORS.WenCai!, { args: { query: '600519' } }), 'COMPONENT_UNSUPPORTED', false);
    expect(e.message).toMatch(/use YahooFinance/);
  });
});
