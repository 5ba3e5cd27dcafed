/**
 * SearXNG client: the instance's JSON search API (`GET /search?q=…&format=json`), with the query
 * parameters RAGFlow's SearXNG tool sends. The instance is the component's `searxng_url`, else
 * SEARXNG_BASE_URL. A `searxng_url` is the tenant's choice and goes through the network guard,
 * as RAGFlow guards it; the operator's SEARXNG_BASE_URL is trusted. A URL the model proposes is
 * ignored: letting the model pick the host would let a prompt steer requests at will.
 */
import { AppError } from '../../errors';
import { searchExecutor } from './search';
import { fetchJson, positiveInt, statusError, trimBase } from './webHttp';

/** The instance's search endpoint; a URL already ending in /search is used as is. */
function searchEndpoint(base: string): string {
  const b = trimBase(base);
  if (!/^https?:\/\//i.test(b)) throw new AppError('TOOL_BAD_REQUEST', `SearXNG URL must start with http:// or https://, got "${b}"`);
  return b.endsWith('/search') ? b : `${b}/search`;
}

export const searxngSearch = searchExecutor(async ({ params, env, signal }, query) => {
  const own = typeof params.searxng_url === 'string' ? params.searxng_url.trim() : '';
  const base = own || env.SEARXNG_BASE_URL?.trim();
  if (!base) throw new AppError('TOOL_BAD_REQUEST', 'SearXNG needs the URL of an instance: set searxng_url on the component or SEARXNG_BASE_URL');
  const topN = positiveInt(params.top_n, 10);
  const res = await fetchJson(searchEndpoint(base), {
    params: { q: query, format: 'json', categories: 'general', language: 'auto', safesearch: '1', pageno: '1' },
    signal,
    service: 'SearXNG',
    env,
    ...(own ? { guard: { env } } : {}),
    // SearXNG answers 403 when JSON output is off, the usual first-time setup problem.
    explain: (status, body) =>
      status === 403
        ? new AppError('TOOL_BAD_REQUEST', `SearXNG refused the JSON API (HTTP 403): add "json" to search.formats in the instance's settings.yml`, { status })
        : statusError('SearXNG', status, body),
  });
  const results = (res as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new AppError('TOOL_UNAVAILABLE', 'SearXNG answered without a results list');
  const top = (results as Array<Record<string, unknown>>).slice(0, topN);
  return { hits: top.map((r) => ({ title: String(r.title ?? ''), url: String(r.url ?? ''), snippet: String(r.content ?? '') })), json: top };
});
