/**
 * One local server standing in for every service of RAGFlow's tool catalog, each under its own
 * prefix (`/bing`, `/serpapi`, `/arxiv`...); `toolServiceEnv` points each tool's `<TOOL>_BASE_URL`
 * there. Requests are recorded, and `failFor`/`requestsFor` match a request's term: its query,
 * whatever the protocol calls it (see `termOf`).
 */
import { json, startStandIn, type Answer, type RecordedRequest, type StandIn } from './httpStandIn';
import { arxiv, bgpt, bing, github, keenable, pubmed, querit, serpapi } from './searchApiRoutes';
import { deepl, eastmoney, jin10, pages, qweather, qweatherGeo, tushare, yahoo, yahooCookie } from './dataApiRoutes';

/** The term of a request: the query whatever the service calls it. */
export function termOf(req: RecordedRequest): string | undefined {
  const body = (req.json ?? {}) as { query?: unknown; text?: unknown };
  const yahooSymbol =
    req.path.startsWith('/yahoo/v') && !req.path.endsWith('/search') && !req.path.endsWith('/getcrumb')
      ? decodeURIComponent(req.path.split('/').pop() ?? '')
      : undefined;
  return (
    req.query.q ??
    req.query.search_query ??
    req.query.term ??
    req.query.location ??
    yahooSymbol ??
    (typeof body.query === 'string' ? body.query : undefined) ??
    (Array.isArray(body.text) ? String(body.text[0]) : undefined) ??
    (req.query.param ? (JSON.parse(req.query.param) as { keyword?: string }).keyword : undefined)
  );
}

export interface ToolServices extends StandIn {
  env: Record<string, string>;
}

export async function startToolServices(): Promise<ToolServices> {
  let base = '';
  const route = (req: RecordedRequest): Answer => {
    const [, prefix = '', ...rest] = req.path.split('/');
    const path = `/${rest.join('/')}`;
    switch (prefix) {
      case 'bing':
        return bing(req, path);
      case 'serpapi':
        return path === '/search.json' ? serpapi(req) : json({ error: 'not found' }, 404);
      case 'arxiv':
        return arxiv(req);
      case 'pubmed':
        return pubmed(req, path);
      case 'github':
        return github(req);
      case 'bgpt':
        return bgpt(req);
      case 'keenable':
        return keenable(req, path);
      case 'querit':
        return querit(req, path);
      case 'yahoo-cookie':
        return yahooCookie();
      case 'yahoo':
        return yahoo(req, path);
      case 'deepl':
        return deepl(req, false);
      case 'deepl-free':
        return deepl(req, true);
      case 'qweather-geo':
        return qweatherGeo(req);
      case 'qweather':
        return qweather(req, path);
      case 'tushare':
        return tushare(req);
      case 'jin10':
        return jin10(req, path);
      case 'eastmoney':
        return eastmoney(req, path);
      case 'pages':
        return pages(req, path, `${base}/pages`);
      default:
        return json({ error: `no stand-in for /${prefix}` }, 404);
    }
  };
  const s = await startStandIn(route, { term: termOf });
  base = s.url;
  const env = {
    BING_BASE_URL: `${base}/bing`,
    SERPAPI_BASE_URL: `${base}/serpapi`,
    ARXIV_BASE_URL: `${base}/arxiv`,
    PUBMED_BASE_URL: `${base}/pubmed`,
    GITHUB_BASE_URL: `${base}/github`,
    BGPT_BASE_URL: `${base}/bgpt`,
    KEENABLE_BASE_URL: `${base}/keenable`,
    QUERIT_BASE_URL: `${base}/querit`,
    YAHOOFINANCE_BASE_URL: `${base}/yahoo`,
    YAHOOFINANCE_COOKIE_URL: `${base}/yahoo-cookie`,
    DEEPL_BASE_URL: `${base}/deepl`,
    DEEPL_FREE_BASE_URL: `${base}/deepl-free`,
    QWEATHER_GEO_BASE_URL: `${base}/qweather-geo`,
    QWEATHER_BASE_URL: `${base}/qweather`,
    TUSHARE_BASE_URL: `${base}/tushare`,
    JIN10_BASE_URL: `${base}/jin10`,
    AKSHARE_BASE_URL: `${base}/eastmoney`,
  };
  return Object.assign(s, { env });
}
