/**
 * Keenable client: `POST {KEENABLE_BASE_URL}/v1/search` with `X-API-Key` when a key is set, else
 * the keyless public endpoint `/v1/search/public`; body `{query, mode, site?}` as RAGFlow sends it.
 * RAGFlow's KEENABLE_API_URL is read as well.
 */
import { AppError } from '../../errors';
import { credential, searchExecutor, serviceBase, textParam } from './search';
import { fetchJson, positiveInt } from './webHttp';

export const keenableSearch = searchExecutor(async (x, query) => {
  const base = serviceBase(x.env, ['KEENABLE_BASE_URL', 'KEENABLE_API_URL'], 'https://api.keenable.ai');
  const key = credential(x, 'api_key', ['KEENABLE_API_KEY']);
  const mode = textParam(x.params, 'mode') || 'pro';
  if (mode === 'realtime' && !key)
    throw new AppError('TOOL_AUTH', "Keenable's realtime mode needs an API key: set api_key on the component or KEENABLE_API_KEY");
  const site = typeof x.args.site === 'string' ? x.args.site.trim() : '';
  const res = (await fetchJson(`${base}${key ? '/v1/search' : '/v1/search/public'}`, {
    json: { query, mode, ...(site ? { site } : {}) },
    headers: { 'user-agent': 'keenable-ragflow', 'x-keenable-title': 'RAGFlow', ...(key ? { 'x-api-key': key } : {}) },
    signal: x.signal,
    env: x.env,
    service: 'Keenable',
    secrets: key ? [key] : [],
  })) as { results?: Array<Record<string, unknown>> } | null;
  const results = (Array.isArray(res?.results) ? res.results : []).slice(0, positiveInt(x.params.top_n, 10));
  const hits = results.map((r) => ({
    title: String(r.title ?? ''),
    url: String(r.url ?? ''),
    snippet: String(r.snippet || r.description || '')
      .split(/\s+/)
      .join(' ')
      .trim(),
  }));
  return { hits, json: results };
});
