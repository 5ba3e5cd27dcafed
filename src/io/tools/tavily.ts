/**
 * Tavily clients (search and extract) against Tavily's HTTP API; the base URL is configurable so
 * tests (and self-hosted proxies) can stand in for it.
 */
import { SECRET_MARKER } from '../../core/dsl/secrets';
import { AppError } from '../../errors';
import { formatDocuments } from './format';
import { postJson } from './http';
import type { ToolExecutor } from './executor';

function apiKey(params: Record<string, unknown>, env: Record<string, string | undefined>): string {
  const key = typeof params.api_key === 'string' && params.api_key && params.api_key !== SECRET_MARKER ? params.api_key : env.TAVILY_API_KEY;
  if (!key) throw new AppError('TOOL_AUTH', 'Tavily needs an API key: set api_key on the component or TAVILY_API_KEY');
  return key;
}

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string' && v.trim()) return v.split(',').map((s) => s.trim());
  return [];
}

export const tavilySearch: ToolExecutor = async ({ params, args, env, signal }) => {
  const query = String(args.query ?? '').trim();
  if (!query) return { text: '', outputs: { formalized_content: '', json: [] } };
  const base = (env.TAVILY_BASE_URL ?? 'https://api.tavily.com').replace(/\/$/, '');
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
  const res = (await postJson(`${base}/search`, body, { headers: { authorization: `Bearer ${apiKey(params, env)}` }, signal, service: 'Tavily' })) as {
    results?: Array<Record<string, unknown>>;
  };
  const docs = (res.results ?? []).map((r) => ({
    title: String(r.title ?? ''),
    url: String(r.url ?? ''),
    content: String(r.raw_content || r.content || ''),
    score: typeof r.score === 'number' ? r.score : 1,
  }));
  const f = formatDocuments(docs);
  return { text: f.text, outputs: { formalized_content: f.text, json: f.json }, reference: { chunks: f.chunks, doc_aggs: f.docAggs } };
};

export const tavilyExtract: ToolExecutor = async ({ params, args, env, signal }) => {
  const urls = list(args.urls ?? params.urls);
  if (urls.length === 0) throw new AppError('TOOL_BAD_REQUEST', 'TavilyExtract needs at least one URL');
  const base = (env.TAVILY_BASE_URL ?? 'https://api.tavily.com').replace(/\/$/, '');
  const body = {
    urls,
    extract_depth: args.extract_depth ?? params.extract_depth ?? 'basic',
    format: args.format ?? params.format ?? 'markdown',
    include_images: false,
  };
  const res = (await postJson(`${base}/extract`, body, { headers: { authorization: `Bearer ${apiKey(params, env)}` }, signal, service: 'Tavily' })) as {
    results?: Array<Record<string, unknown>>;
    failed_results?: Array<Record<string, unknown>>;
  };
  const results = (res.results ?? []).map((r) => ({ url: String(r.url ?? ''), raw_content: String(r.raw_content ?? '') }));
  const failed = (res.failed_results ?? []).map((r) => `${String(r.url ?? '')}: ${String(r.error ?? 'failed')}`);
  const text = [...results.map((r) => `URL: ${r.url}\n${r.raw_content}`), ...(failed.length ? [`Could not read:\n${failed.join('\n')}`] : [])].join('\n\n');
  return { text, outputs: { json: results, formalized_content: text } };
};
