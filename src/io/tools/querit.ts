/**
 * Querit clients: `POST {QUERIT_BASE_URL}/v1/search` and `/v1/contents` with a bearer key (the
 * component's `api_key`, else QUERIT_API_KEY), bodies as RAGFlow builds them (camelCase fields,
 * `filters` for sites, time range, countries and languages). A model's arguments override the
 * component's values, as in RAGFlow. RAGFlow retries 429/5xx three times inside the call; here
 * those answers are retryable failures and Temporal retries them with the node's `max_retries`.
 */
import { AppError } from '../../errors';
import type { ToolExecution, ToolExecutor } from './executor';
import { queryOf, requireCredential, searchAnswer, serviceBase } from './search';
import { fetchJson } from './webHttp';

async function querit(x: ToolExecution, path: string, body: unknown, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const key = requireCredential(x, 'Querit', 'api_key', ['QUERIT_API_KEY']);
  const base = serviceBase(x.env, ['QUERIT_BASE_URL'], 'https://api.querit.ai');
  const res = await fetchJson(`${base}${path}`, {
    json: body,
    headers: { authorization: `Bearer ${key}` },
    signal: x.signal,
    env: x.env,
    service: 'Querit',
    timeoutMs,
    secrets: [key],
  });
  if (typeof res !== 'object' || res === null || Array.isArray(res)) throw new AppError('TOOL_UNAVAILABLE', 'Querit API response must be a JSON object.');
  return res as Record<string, unknown>;
}

/** The model's value for `name`, else the component's. */
const pick = (x: ToolExecution, name: string): unknown => (x.args[name] !== undefined ? x.args[name] : x.params[name]);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String).filter(Boolean) : typeof v === 'string' && v.trim() ? v.split(',').map((s) => s.trim()) : [];

export const queritSearch: ToolExecutor = async (x) => {
  const query = queryOf(x.args);
  if (!query) return { text: '', outputs: { formalized_content: '', json: {} } };
  const count = Number(pick(x, 'count') ?? 10);
  const chunks = pick(x, 'chunks_per_doc');
  if (!Number.isInteger(count) || count < 1) throw new AppError('TOOL_BAD_REQUEST', 'Querit count must be an integer greater than or equal to 1.');
  const sites = { include: strings(pick(x, 'site_include')), exclude: strings(pick(x, 'site_exclude')) };
  const timeRange = String(pick(x, 'time_range') ?? '').trim();
  const countries = strings(pick(x, 'country_include'));
  const languages = strings(pick(x, 'language_include'));
  const filters: Record<string, unknown> = {
    ...(sites.include.length || sites.exclude.length
      ? { sites: { ...(sites.include.length ? { include: sites.include } : {}), ...(sites.exclude.length ? { exclude: sites.exclude } : {}) } }
      : {}),
    ...(timeRange ? { timeRange: { date: timeRange } } : {}),
    ...(countries.length ? { geo: { countries: { include: countries } } } : {}),
    ...(languages.length ? { languages: { include: languages } } : {}),
  };
  const body = {
    query,
    count,
    ...(chunks !== null && chunks !== undefined ? { chunksPerDoc: Number(chunks) } : {}),
    ...(Object.keys(filters).length ? { filters } : {}),
  };
  const res = await querit(x, '/v1/search', body);
  const container = res.results ?? {};
  const list = (container as { result?: unknown }).result ?? [];
  if (typeof container !== 'object' || !Array.isArray(list))
    throw new AppError('TOOL_UNAVAILABLE', 'Querit API response field results.result must be an array.');
  const hits = (list as Array<Record<string, unknown>>)
    .filter((r) => typeof r === 'object' && r !== null)
    .map((r) => ({ title: String(r.title ?? ''), url: String(r.url ?? ''), snippet: String(r.snippet ?? ''), score: 1 }));
  return searchAnswer({ hits, json: res });
};

export const queritContents: ToolExecutor = async (x) => {
  const urls = strings(pick(x, 'urls'));
  if (urls.length < 1 || urls.length > 10) throw new AppError('TOOL_BAD_REQUEST', 'Querit urls must contain between 1 and 10 non-empty strings.');
  for (const u of urls) if (!/^https?:\/\/[^/\s]+/i.test(u)) throw new AppError('TOOL_BAD_REQUEST', 'Querit urls must be absolute HTTP or HTTPS URLs.');
  const crawlTimeout = Number(pick(x, 'crawl_timeout') ?? 10);
  const body = { urls, format: String(pick(x, 'format') ?? 'markdown'), crawlTimeout, extrasMeta: pick(x, 'extras_meta') === true };
  const res = await querit(x, '/v1/contents', body, (Math.max(30, crawlTimeout + 5) + 5) * 1000);
  const text = JSON.stringify(res);
  return { text, outputs: { json: res } };
};
