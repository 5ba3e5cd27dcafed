/**
 * Tavily clients (search and extract) against Tavily's HTTP API; the base URL is configurable so
 * tests (and self-hosted proxies) can stand in for it.
 */
import { AppError } from '../../errors';
import type { ToolExecution, ToolExecutor } from './executor';
import { requireCredential, searchExecutor, serviceBase } from './search';
import { fetchJson } from './webHttp';

/** POST a JSON body to Tavily with the key as a bearer token. */
async function tavily(x: ToolExecution, path: string, body: unknown): Promise<Record<string, unknown>> {
  const key = requireCredential(x, 'Tavily', 'api_key', ['TAVILY_API_KEY']);
  const base = serviceBase(x.env, ['TAVILY_BASE_URL'], 'https://api.tavily.com');
  const res = await fetchJson(`${base}${path}`, {
    json: body,
    headers: { authorization: `Bearer ${key}` },
    signal: x.signal,
    env: x.env,
    service: 'Tavily',
    timeoutMs: 60_000,
    secrets: [key],
  });
  return (res ?? {}) as Record<string, unknown>;
}

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string' && v.trim()) return v.split(',').map((s) => s.trim());
  return [];
}

export const tavilySearch = searchExecutor(async (x, query) => {
  const { params, args } = x;
  const body = {
    query,
    search_depth: args.search_depth ?? params.search_depth ?? 'basic',
    topic: args.topic ?? params.topic ?? 'general',
    max_results: params.max_results ?? 6,
    days: params.days ?? 14,
    include_answer: false,
    include_raw_content: Boolean(params.include_raw_content),
    include_images: false,
    include_domains: list(args.include_domains ?? params.include_domains),
    exclude_domains: list(args.exclude_domains ?? params.exclude_domains),
  };
  const results = ((await tavily(x, '/search', body)).results ?? []) as Array<Record<string, unknown>>;
  const hits = results.map((r) => ({
    title: String(r.title ?? ''),
    url: String(r.url ?? ''),
    snippet: String(r.raw_content || r.content || ''),
    score: typeof r.score === 'number' ? r.score : 1,
  }));
  // RAGFlow's json output is the results as cited: title, url, content, score.
  return { hits };
});

export const tavilyExtract: ToolExecutor = async (x) => {
  const { params, args } = x;
  const urls = list(args.urls ?? params.urls);
  if (urls.length === 0) throw new AppError('TOOL_BAD_REQUEST', 'TavilyExtract needs at least one URL');
  const body = {
    urls,
    extract_depth: args.extract_depth ?? params.extract_depth ?? 'basic',
    format: args.format ?? params.format ?? 'markdown',
    include_images: false,
  };
  const res = (await tavily(x, '/extract', body)) as {
    results?: Array<Record<string, unknown>>;
    failed_results?: Array<Record<string, unknown>>;
  };
  const results = (res.results ?? []).map((r) => ({ url: String(r.url ?? ''), raw_content: String(r.raw_content ?? '') }));
  const failed = (res.failed_results ?? []).map((r) => `${String(r.url ?? '')}: ${String(r.error ?? 'failed')}`);
  const text = [...results.map((r) => `URL: ${r.url}\n${r.raw_content}`), ...(failed.length ? [`Could not read:\n${failed.join('\n')}`] : [])].join('\n\n');
  return { text, outputs: { json: results, formalized_content: text } };
};
