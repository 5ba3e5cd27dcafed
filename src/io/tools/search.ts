/**
 * The shape every search tool's executor shares: a query (from the model's arguments, or the
 * node's rendered param) → the engine's results as hits (title, url, snippet, score) → the answer
 * RAGFlow's `ToolBase._retrieve_chunks` gives: `formalized_content` (knowledge blocks headed
 * `ID: n`), the engine's own `json`, and the hits as citations for the run's reference. An
 * engine is then its request and its mapping to hits; see e.g. arxiv.ts or github.ts.
 */
import { SECRET_MARKER } from '../../core/dsl/secrets';
import { AppError } from '../../errors';
import type { ToolExecution, ToolExecutor } from './executor';
import { formatDocuments } from './format';
import { trimBase } from './webHttp';

export interface SearchHit {
  title: string;
  url: string;
  /** The text the model reads and the citation shows (an abstract, a snippet...). */
  snippet: string;
  score?: number;
}

export interface SearchAnswer {
  hits: SearchHit[];
  /**
   * The node's `json` output: the engine's results in its own shape, as RAGFlow keeps them;
   * omitted, the cited hits (title, url, content, score).
   */
  json?: unknown;
}

export type ToolAnswer = Awaited<ReturnType<ToolExecutor>>;

/** An answer with no results (an empty query, or nothing found). */
export function emptyAnswer(json: unknown = []): ToolAnswer {
  return { text: '', outputs: { formalized_content: '', json } };
}

/** Hits as the tool's answer: formalized content, json and citations. */
export function searchAnswer({ hits, json }: SearchAnswer): ToolAnswer {
  const f = formatDocuments(hits.map((h) => ({ title: h.title, url: h.url, content: h.snippet, ...(h.score !== undefined ? { score: h.score } : {}) })));
  return {
    text: f.text,
    outputs: { formalized_content: f.text, json: json === undefined ? f.json : json },
    reference: { chunks: f.chunks, doc_aggs: f.docAggs },
  };
}

/**
 * The query of a call: the first of `names` the model (or the node) gave, trimmed. RAGFlow names
 * it `query` for most engines, `q` for Google, `stock_code` for YahooFinance.
 */
export function queryOf(args: Record<string, unknown>, names: readonly string[] = ['query']): string {
  for (const n of names) {
    const v = args[n];
    if (v !== undefined && v !== null && String(v).trim()) return (typeof v === 'string' ? v : JSON.stringify(v)).trim();
  }
  return '';
}

/** A search tool's executor from its engine call; an empty query answers nothing without a request. */
export function searchExecutor(search: (x: ToolExecution, query: string) => Promise<SearchAnswer>, queryNames?: readonly string[]): ToolExecutor {
  return async (x) => {
    const query = queryOf(x.args, queryNames);
    if (!query) return emptyAnswer();
    return searchAnswer(await search(x, query));
  };
}

/** A text param (blank, RAGFlow's "xxx" placeholder and the history marker count as unset). */
export function textParam(params: Record<string, unknown>, name: string): string {
  const v = params[name];
  if (typeof v !== 'string') return typeof v === 'number' ? String(v) : '';
  const t = v.trim();
  return t === SECRET_MARKER || t === 'xxx' ? '' : t;
}

/**
 * A credential: the component's own param (`api_key`, `auth_key`...), else the operator's env
 * variable. Neither ever leaves the worker: params reach workflow history redacted (see
 * src/core/dsl/secrets.ts) and executors never echo them in outputs or errors.
 */
export function credential(x: Pick<ToolExecution, 'params' | 'env'>, param: string, envNames: readonly string[]): string {
  const own = textParam(x.params, param);
  if (own) return own;
  for (const n of envNames) {
    const v = x.env[n]?.trim();
    if (v) return v;
  }
  return '';
}

/** `credential`, required: TOOL_AUTH (not retried) naming where to set it when there is none. */
export function requireCredential(x: Pick<ToolExecution, 'params' | 'env'>, service: string, param: string, envNames: readonly string[]): string {
  const key = credential(x, param, envNames);
  if (!key) throw new AppError('TOOL_AUTH', `${service} needs an API key: set ${param} on the component or ${envNames.join(' or ')}`);
  return key;
}

/** The service's base URL: the operator's `<TOOL>_BASE_URL` (any of `envNames`), else the public one. */
export function serviceBase(env: Record<string, string | undefined>, envNames: readonly string[], def: string): string {
  for (const n of envNames) {
    const v = env[n]?.trim();
    if (v) return trimBase(v);
  }
  return trimBase(def);
}
