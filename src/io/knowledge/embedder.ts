/**
 * Embeddings: an OpenAI-compatible `/embeddings` endpoint when one is configured
 * (EMBEDDING_BASE_URL, EMBEDDING_API_KEY, EMBEDDING_MODEL), otherwise the offline hashed
 * embedding, so datasets work with no service at all. A dataset keeps the model it was created
 * with; every chunk of it and every query against it use that model.
 */
import OpenAI from 'openai';
import { LOCAL_EMBEDDING_MODEL, localEmbedding } from '../text/localEmbedding';
import { AppError } from '../../errors';
import { pooledFetch } from '../net';

export interface EmbeddingSettings {
  baseUrl?: string;
  apiKey?: string;
  /** Model for new datasets that name none. */
  defaultModel?: string;
}

export function embeddingSettingsFromEnv(env: Record<string, string | undefined>): EmbeddingSettings {
  return { baseUrl: env.EMBEDDING_BASE_URL || undefined, apiKey: env.EMBEDDING_API_KEY || undefined, defaultModel: env.EMBEDDING_MODEL || undefined };
}

/**
 * The model a new dataset gets. A dataset keeps the id it was given (RAGFlow's `model@Factory`);
 * without one, the configured default (EMBEDDING_MODEL), else the offline embedding (or, with an
 * endpoint, `text-embedding-3-small`).
 */
export function datasetEmbeddingModel(requested: string | null | undefined, s: EmbeddingSettings): string {
  const given = (requested ?? '').trim();
  if (given) return given;
  if (s.defaultModel) return s.defaultModel;
  return s.baseUrl ? 'text-embedding-3-small' : LOCAL_EMBEDDING_MODEL;
}

/** RAGFlow's built-in models (`…@Builtin`) and our offline model run here, without an endpoint. */
function isLocal(model: string, s: EmbeddingSettings): boolean {
  if (model === LOCAL_EMBEDDING_MODEL || model.split('@')[0] === LOCAL_EMBEDDING_MODEL) return true;
  return !s.baseUrl && /@Builtin$/i.test(model);
}

/**
 * Whether a dataset may use `model` (RAGFlow's `verify_embedding_availability`): null when it can,
 * else RAGFlow's message. With an endpoint every `model@Factory` goes to it; without one only the
 * built-in models (`…@Builtin`, the offline embedding) are served: any other provider is one the
 * tenant has not configured, which RAGFlow's model lookup (`resolve_model_config`) reports as
 * `Provider <factory> not found for model <model>.`.
 */
export function embeddingUnavailable(model: string, s: EmbeddingSettings): string | null {
  if (isLocal(model, s) || s.baseUrl) return null;
  if (model === s.defaultModel) return null;
  const at = model.lastIndexOf('@');
  return `Provider ${at >= 0 ? model.slice(at + 1) : ''} not found for model ${model}.`;
}

/** Whether two model ids embed the same way (chunks made with one are searchable with the other). */
export function sameEmbedding(a: string, b: string, s: EmbeddingSettings): boolean {
  if (a === b) return true;
  if (isLocal(a, s) && isLocal(b, s)) return true;
  return !isLocal(a, s) && !isLocal(b, s) && a.split('@')[0] === b.split('@')[0];
}

export interface Embedder {
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
  /**
   * `embed` through the provider, with the token count its answer reported (null when it reported
   * none). Absent for the offline embedding, which sends no request (nothing to trace).
   */
  embedReporting?(texts: string[], signal?: AbortSignal): Promise<{ vectors: number[][]; promptTokens: number | null }>;
}

export function embedderFor(model: string, s: EmbeddingSettings): Embedder {
  if (isLocal(model, s) || (!s.baseUrl && model === s.defaultModel)) return { model, embed: async (texts) => texts.map((t) => localEmbedding(t)) };
  if (!s.baseUrl) throw new AppError('TOOL_BAD_REQUEST', `The dataset uses the embedding model "${model}" but no EMBEDDING_BASE_URL is configured`);
  // RAGFlow's `model@Factory` (or `model@instance@Factory`): the endpoint gets the model name.
  const name = model.includes('@') ? model.slice(0, model.indexOf('@')) : model;
  // Retries are Temporal's (activity retry policy), not the client's.
  const client = new OpenAI({ baseURL: s.baseUrl, apiKey: s.apiKey ?? 'none', maxRetries: 0, timeout: 60_000, fetch: pooledFetch });
  const embedReporting = async (texts: string[], signal?: AbortSignal) => {
    try {
      // Floats, not the client's default base64: not every OpenAI-compatible server speaks base64.
      const res = await client.embeddings.create({ model: name, input: texts, encoding_format: 'float' }, { signal });
      const reported = (res as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
      return {
        vectors: [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding),
        promptTokens: typeof reported === 'number' && Number.isFinite(reported) ? reported : null,
      };
    } catch (err) {
      if (signal?.aborted) throw err;
      const status = (err as { status?: number }).status;
      const code =
        status === 401 || status === 403 ? 'TOOL_AUTH' : status && status >= 400 && status < 500 && status !== 429 ? 'TOOL_BAD_REQUEST' : 'TOOL_UNAVAILABLE';
      throw new AppError(code, `Embedding with ${model} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return { model, embedReporting, embed: async (texts, signal) => (await embedReporting(texts, signal)).vectors };
}
