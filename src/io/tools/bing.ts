/**
 * Bing client: the Bing Web Search API v7 (`GET {BING_BASE_URL}/v7.0/search` for web pages,
 * `/v7.0/news/search` for news; key in `Ocp-Apim-Subscription-Key`). Microsoft retired its own
 * endpoint in 2025; the protocol stays for services and proxies that speak it (BING_BASE_URL).
 */
import { AppError } from '../../errors';
import { requireCredential, searchExecutor, serviceBase, textParam } from './search';
import { fetchJson, positiveInt, statusError } from './webHttp';

interface BingItem {
  name?: string;
  url?: string;
  snippet?: string;
  description?: string;
}

export const bingSearch = searchExecutor(async (x, query) => {
  const placeholder = textParam(x.params, 'api_key').startsWith('YOUR_API_KEY');
  const key = requireCredential(placeholder ? { ...x, params: {} } : x, 'Bing', 'api_key', ['BING_API_KEY']);
  const news = textParam(x.params, 'channel').toLowerCase() === 'news';
  const base = serviceBase(x.env, ['BING_BASE_URL'], 'https://api.bing.microsoft.com');
  const market = `${textParam(x.params, 'language') || 'en'}-${(textParam(x.params, 'country') || 'CH').toUpperCase()}`;
  const count = positiveInt(x.params.top_n, 10);
  const res = (await fetchJson(`${base}/v7.0/${news ? 'news/search' : 'search'}`, {
    params: { q: query, count: String(count), mkt: market, textFormat: 'Raw', ...(news ? {} : { responseFilter: 'Webpages' }) },
    headers: { 'Ocp-Apim-Subscription-Key': key },
    signal: x.signal,
    env: x.env,
    service: 'Bing',
    secrets: [key],
    // Bing's errors: {error: {code, message}} (v7: {errors: [{code, message}]}); 429 is its rate limit.
    explain: (status, body) => {
      const e = statusError('Bing', status, body);
      const detail = /"message"\s*:\s*"([^"]+)"/.exec(body)?.[1];
      return detail ? new AppError(e.code, `Bing answered HTTP ${status}: ${detail}`, e.details) : e;
    },
  })) as { webPages?: { value?: BingItem[] }; value?: BingItem[] } | null;
  const items = (news ? res?.value : res?.webPages?.value) ?? [];
  if (!Array.isArray(items)) throw new AppError('TOOL_UNAVAILABLE', 'Bing answered without a results list');
  const top = items.slice(0, count);
  return { hits: top.map((r) => ({ title: String(r.name ?? ''), url: String(r.url ?? ''), snippet: String(r.snippet ?? r.description ?? '') })), json: top };
});
