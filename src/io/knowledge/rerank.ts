/**
 * Optional reranking through a `/rerank` endpoint (the Jina/Cohere shape that LiteLLM, vLLM,
 * Xinference and TEI serve): RERANK_BASE_URL, RERANK_API_KEY. A Retrieval with a `rerank_id`
 * and no endpoint configured ranks without it (and says so in its outputs).
 */
import { AppError } from '../../errors';

export interface RerankSettings {
  baseUrl?: string;
  apiKey?: string;
}

export function rerankSettingsFromEnv(env: Record<string, string | undefined>): RerankSettings {
  return { baseUrl: env.RERANK_BASE_URL || undefined, apiKey: env.RERANK_API_KEY || undefined };
}

export interface RerankAnswer {
  /** Relevance scores in [0, 1] for the documents, in their order. */
  scores: number[];
  /** The endpoint's token count (`usage.prompt_tokens`, else `usage.total_tokens` as Jina and vLLM report it); null when none. */
  promptTokens: number | null;
}

/** Relevance scores in [0, 1] for `documents`, in their order, with the tokens the endpoint reported. */
export async function rerankScores(s: RerankSettings, model: string, query: string, documents: string[], signal?: AbortSignal): Promise<RerankAnswer> {
  if (!s.baseUrl) throw new AppError('TOOL_BAD_REQUEST', 'no RERANK_BASE_URL is configured');
  const res = await fetch(`${s.baseUrl.replace(/\/$/, '')}/rerank`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {}) },
    body: JSON.stringify({ model: model.split('@')[0], query, documents, top_n: documents.length }),
    signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000),
  }).catch((err: unknown) => {
    throw new AppError('TOOL_UNAVAILABLE', `Rerank endpoint unreachable: ${err instanceof Error ? err.message : String(err)}`);
  });
  const text = await res.text();
  if (!res.ok)
    throw new AppError(
      res.status >= 500 || res.status === 429 ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST',
      `Rerank failed with HTTP ${res.status}: ${text.slice(0, 200)}`,
    );
  const body = JSON.parse(text) as {
    results?: Array<{ index: number; relevance_score?: number; score?: number }>;
    usage?: { prompt_tokens?: unknown; total_tokens?: unknown };
  };
  const scores = new Array<number>(documents.length).fill(0);
  for (const r of body.results ?? []) if (r.index >= 0 && r.index < documents.length) scores[r.index] = Number(r.relevance_score ?? r.score ?? 0);
  const reported = body.usage?.prompt_tokens ?? body.usage?.total_tokens;
  return { scores, promptTokens: typeof reported === 'number' && Number.isFinite(reported) ? reported : null };
}
