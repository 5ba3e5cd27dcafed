/**
 * Stand-ins for the finance, utility and web APIs of RAGFlow's tools, in each service's shapes:
 * Yahoo Finance (cookie, crumb, quoteSummary, chart, fundamentals-timeseries, search), DeepL
 * (`/v2/translate`), QWeather (city lookup, weather, indices, air), TuShare Pro, Jin10's open data
 * API, and plain web pages for Crawler (with redirects). Same conventions as searchApiRoutes.ts.
 */
import { html, json, type Answer, type RecordedRequest } from './httpStandIn';

export const YAHOO_CRUMB = 'Kq9dL.7rXyz';

export function yahooCookie(): Answer {
  return {
    status: 404,
    body: 'Not Found',
    contentType: 'text/html',
    headers: {
      'set-cookie': [
        'A3=d=AQABBstandin&S=AQAAAg; Expires=Tue, 24 Nov 2027 00:00:00 GMT; Max-Age=31557600; Domain=.yahoo.com; Path=/; SameSite=None; Secure; HttpOnly',
      ],
    },
  };
}

const BALANCE: Record<string, number[]> = {
  TotalAssets: [364980000000, 352583000000],
  TotalDebt: [106629000000, 111088000000],
  WorkingCapital: [-23405000000, -1742000000],
};

export function yahoo(req: RecordedRequest, path: string): Answer {
  const cookie = String(req.headers.cookie ?? '');
  if (path === '/v1/test/getcrumb')
    return cookie.includes('A3=')
      ? { status: 200, body: YAHOO_CRUMB, contentType: 'text/plain' }
      : json({ finance: { result: null, error: { code: 'Unauthorized', description: 'Invalid Cookie' } } }, 401);
  if (req.query.crumb !== YAHOO_CRUMB || !cookie.includes('A3='))
    return json({ finance: { result: null, error: { code: 'Unauthorized', description: 'Invalid Crumb' } } }, 401);
  const symbol = decodeURIComponent(path.split('/').pop() ?? '');
  if (symbol === 'RATELIMIT' || req.query.q === 'ratelimit') return { status: 429, body: 'Too Many Requests\r\n', contentType: 'text/html' };
  if (path.startsWith('/v10/finance/quoteSummary/')) {
    if (symbol === 'NOPE')
      return json({ quoteSummary: { result: null, error: { code: 'Not Found', description: `Quote not found for symbol: ${symbol}` } } }, 404);
    const modules = (req.query.modules ?? '').split(',');
    const r: Record<string, unknown> = {};
    if (modules.includes('assetProfile'))
      r.assetProfile = {
        industry: 'Consumer Electronics',
        sector: 'Technology',
        fullTimeEmployees: 164000,
        longBusinessSummary: `${symbol} designs phones.`,
        maxAge: 86400,
      };
    if (modules.includes('price'))
      r.price = { symbol, shortName: `${symbol} Inc.`, currency: 'USD', regularMarketPrice: { raw: 229.87, fmt: '229.87' }, maxAge: 1 };
    if (modules.includes('summaryDetail')) r.summaryDetail = { marketCap: { raw: 3475000000000, fmt: '3.48T' }, trailingPE: { raw: 37.8, fmt: '37.80' } };
    if (modules.includes('calendarEvents'))
      r.calendarEvents = {
        earnings: { earningsDate: [{ raw: 1769644800, fmt: '2026-01-29' }], earningsAverage: { raw: 2.35, fmt: '2.35' } },
        exDividendDate: { raw: 1762732800, fmt: '2025-11-10' },
      };
    return json({ quoteSummary: { result: [r], error: null } });
  }
  if (path.startsWith('/v8/finance/chart/'))
    return json({
      chart: {
        result: [
          {
            meta: { symbol, currency: 'USD' },
            timestamp: [1763625600, 1763712000],
            indicators: { quote: [{ open: [228, 229.5], high: [230.1, 231], low: [227.2, 228.8], close: [229.5, 229.87], volume: [41000000, 39000000] }] },
          },
        ],
        error: null,
      },
    });
  if (path.startsWith('/ws/fundamentals-timeseries/v1/finance/timeseries/'))
    return json({
      timeseries: {
        result: (req.query.type ?? '').split(',').map((type) => {
          const period = type.startsWith('annual') ? 'annual' : 'quarterly';
          const values = BALANCE[type.slice(period.length)];
          const dates = period === 'annual' ? ['2024-09-30', '2023-09-30'] : ['2025-06-30', '2025-03-31'];
          return {
            meta: { symbol: [symbol], type: [type] },
            timestamp: values ? [1, 2] : undefined,
            ...(values
              ? {
                  [type]: values.map((v, i) => ({
                    asOfDate: dates[i],
                    periodType: period === 'annual' ? '12M' : '3M',
                    currencyCode: 'USD',
                    reportedValue: { raw: v, fmt: `${v / 1e9}B` },
                  })),
                }
              : {}),
          };
        }),
        error: null,
      },
    });
  if (path === '/v1/finance/search') {
    const q = req.query.q ?? '';
    return json({
      quotes:
        q === 'no such company' ? [] : [{ symbol: q.toLowerCase().includes('apple') ? 'AAPL' : q.toUpperCase(), shortname: 'Apple Inc.', quoteType: 'EQUITY' }],
      news: [
        {
          uuid: 'n1',
          title: `${q} beats estimates`,
          publisher: 'Example Wire',
          link: `https://finance.example/${encodeURIComponent(q)}/1`,
          providerPublishTime: 1763700000,
          type: 'STORY',
        },
      ],
    });
  }
  return json({ finance: { error: { code: 'Not Found', description: 'HTTP 404 Not Found' } } }, 404);
}

export function deepl(req: RecordedRequest, free: boolean): Answer {
  const auth = String(req.headers.authorization ?? '');
  const key = auth.replace(/^DeepL-Auth-Key /, '');
  if (!auth.startsWith('DeepL-Auth-Key ') || key === 'bad-key') return json({ message: 'Forbidden' }, 403);
  if (free !== key.endsWith(':fx')) return json({ message: `Wrong endpoint. Use https://api${free ? '' : '-free'}.deepl.com` }, 403);
  const body = (req.json ?? {}) as { text?: string[]; target_lang?: string };
  const text = body.text?.[0] ?? '';
  if (text === 'quota') return json({ message: 'Quota Exceeded' }, 456);
  if (text === 'ratelimit') return json({ message: 'Too many requests' }, 429);
  return json({ translations: [{ detected_source_language: 'ZH', text: `[${body.target_lang}] ${text}` }] });
}

export function qweatherGeo(req: RecordedRequest): Answer {
  const loc = req.query.location ?? '';
  if (req.query.key === 'bad-key') return json({ code: '401' });
  if (loc === 'ratelimit') return json({ code: '429' });
  if (loc === 'Atlantis') return json({ code: '404' });
  return json({
    code: '200',
    location: [{ name: loc, id: '101010100', lat: '39.90', lon: '116.40', adm1: 'Beijing', country: 'China' }],
    refer: { sources: ['QWeather'] },
  });
}

export function qweather(req: RecordedRequest, path: string): Answer {
  if (req.query.location !== '101010100') return json({ code: '400' });
  if (path === '/v7/weather/now')
    return json({
      code: '200',
      updateTime: '2026-11-24T10:00+08:00',
      now: { obsTime: '2026-11-24T09:50+08:00', temp: '6', text: 'Sunny', windDir: 'N', humidity: '30' },
    });
  if (/^\/v7\/weather\/\d+d$/.test(path))
    return json({ code: '200', daily: [1, 2, 3].map((i) => ({ fxDate: `2026-11-2${4 + i}`, tempMax: String(8 + i), tempMin: '-1', textDay: 'Cloudy' })) });
  if (path === '/v7/indices/1d')
    return json({
      code: '200',
      daily: [
        { date: '2026-11-24', type: '1', name: 'Sport', level: '2', category: 'Fair', text: 'Dress warmly.' },
        { date: '2026-11-24', type: '3', name: 'Dressing', level: '6', category: 'Cold', text: 'Wear a coat.' },
      ],
    });
  if (path === '/v7/air/now') return json({ code: '200', now: { pubTime: '2026-11-24T10:00+08:00', aqi: '42', category: 'Excellent', primary: 'NA' } });
  return json({ code: '404' });
}

export function tushare(req: RecordedRequest): Answer {
  const body = (req.json ?? {}) as { api_name?: string; token?: string; params?: Record<string, string> };
  if (body.token !== 'tushare-token') return json({ request_id: 'r1', code: 40101, msg: '抱歉，您的token不对，请确认。', data: null });
  if (body.params?.src === 'sina') return json({ request_id: 'r2', code: 40203, msg: '抱歉，您每分钟最多访问该接口1次', data: null });
  return json({
    request_id: 'r3',
    code: 0,
    msg: '',
    data: {
      fields: ['datetime', 'content', 'title', 'channels'],
      items: [
        ['2026-11-24 09:30:00', 'Kweichow Moutai (600519) opens higher.', 'Moutai', ''],
        ['2026-11-24 09:35:00', 'Index futures flat.', '', ''],
        ['2026-11-24 09:40:00', 'MOUTAI announces dividend.', 'Dividend', ''],
      ],
      has_more: false,
    },
  });
}

export function jin10(req: RecordedRequest, path: string): Answer {
  if (req.headers['secret-key'] !== 'jin10-key') return json({ status: 401, message: 'secret-key is invalid', data: null }, 401);
  if (path === '/flash')
    return json({
      status: 200,
      message: 'OK',
      data: [1, 2].map((i) => ({
        id: `f${i}`,
        time: '2026-11-24 10:00:00',
        type: 0,
        data: { content: `Flash ${i} (category ${req.query.category})` },
        important: 0,
      })),
    });
  if (path.startsWith('/calendar/'))
    return json({
      status: 200,
      message: 'OK',
      data: [{ pub_time: '2026-11-24 21:30', country: 'US', name: 'CPI', actual: '3.1', consensus: '3.0', previous: '3.2' }],
    });
  if (path === '/symbols') return json({ status: 200, message: 'OK', data: [{ c: 'XAUUSD', e: 'FX', n: 'Gold', t: 'GOODS' }] });
  if (path === '/quotes')
    return json({ status: 200, message: 'OK', data: [{ a: 1, b: 2, c: req.query.codes, e: 'X', h: 3, hc: 4, l: 5, o: 6, p: 7, t: '10:00' }] });
  if (path === '/news') return json({ status: 200, message: 'OK', data: [{ title: 'Jin10 news', introduction: 'Intro' }] });
  return json({ status: 404, message: 'not found', data: null }, 404);
}

/** East Money's site search (what akshare's stock_news_em reads): JSONP wrapping `result.cmsArticleWebOld`. */
export function eastmoney(req: RecordedRequest, path: string): Answer {
  if (path !== '/search/jsonp') return html('<h1>404</h1>', 404);
  const param = JSON.parse(req.query.param ?? '{}') as { keyword?: string; param?: { cmsArticleWebOld?: { pageSize?: number } } };
  const keyword = param.keyword ?? '';
  if (keyword === 'ratelimit') return html('<html><body>503 Service Temporarily Unavailable</body></html>', 503);
  const size = param.param?.cmsArticleWebOld?.pageSize ?? 10;
  const articles = Array.from({ length: Math.min(size, 12) }, (_, i) => ({
    date: `2026-11-2${i % 4} 09:3${i % 10}:00`,
    title: `<em>${keyword}</em> 新闻 ${i + 1}`,
    content: `第${i + 1}条：<em>${keyword}</em>\u3000公告内容\r\n更多`,
    mediaName: '东方财富网',
    code: `20261124${String(i).padStart(4, '0')}`,
    image: '',
  }));
  return {
    status: 200,
    contentType: 'text/javascript; charset=utf-8',
    body: `${req.query.cb}(${JSON.stringify({ code: 0, msg: '', hitsTotal: articles.length, result: { cmsArticleWebOld: articles } })})`,
  };
}

export function pages(_req: RecordedRequest, path: string, base: string): Answer {
  if (path === '/article')
    return html(
      '<!doctype html><html><head><title>Durable workflows</title><style>body{color:red}</style><script>track()</script></head><body><h1>Durable workflows</h1><p>Temporal keeps <a href="https://temporal.io">state</a>.</p><ul><li>retries</li><li>timers</li></ul><noscript>enable js</noscript></body></html>',
    );
  if (path === '/scripted')
    return html(
      '<!doctype html><html><head><title>App</title></head><body><div id="app">Loading…</div><script>document.getElementById("app").innerHTML = "<h2>Rendered by script</h2><p>Only a browser sees this.</p>";</script></body></html>',
    );
  if (path === '/plain') return { status: 200, body: 'just text', contentType: 'text/plain' };
  if (path === '/moved') return { status: 302, body: '', headers: { location: `${base}/article` } };
  if (path === '/to-metadata') return { status: 302, body: '', headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
  return html('<h1>Not Found</h1>', 404);
}
