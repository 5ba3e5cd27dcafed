/**
 * Embeddings: an OpenAI-compatible `/embeddings` endpoint when one is configured
 * (EMBEDDING_BASE_URL, EMBEDDING_API_KEY, EMBEDDING_MODEL), otherwise the offline hashed
 * embedding, so datasets work with no service at all. A dataset keeps the model it was created
 * with; every chunk of it and every query against it use that model.
 */
import OpenAI from 'openai';
import { LOCAL_EMBEDDING_MODEL, localEmbedding } from './localEmbedding';
import { AppError } from '../../errors';

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
 * The model a new dataset gets: the requested one when an endpoint serves it (RAGFlow's
 * `model@Factory` is accepted: the factory part is dropped), else the offline embedding.
 */
export function datasetEmbeddingModel(requested: string | null | undefined, s: EmbeddingSettings): string {
  if (!s.baseUrl) return LOCAL_EMBEDDING_MODEL;
  const name = (requested ?? '').split('@')[0]!.trim();
  return name || s.defaultModel || 'text-embedding-3-small';
}

export interface Embedder {
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

export function embedderFor(model: string, s: EmbeddingSettings): Embedder {
  if (model === LOCAL_EMBEDDING_MODEL) return { model, embed: async (texts) => texts.map((t) => localEmbedding(t)) };
  if (!s.baseUrl) throw new AppError('TOOL_BAD_REQUEST', `The dataset uses the embedding model "${model}" but no EMBEDDING_BASE_URL is configured`);
  // Retries are Temporal's (activity retry policy), not the client's.
  const client = new OpenAI({ baseURL: s.baseUrl, apiKey: s.apiKey ?? 'none', maxRetries: 0, timeout: 60_000 });
  return {
    model,
    async embed(texts, signal) {
      try {
        // Floats, not the client's default base64: not every OpenAI-compatible server speaks base64.
        const res = await client.embeddings.create({ model, input: texts, encoding_format: 'float' }, { signal });
        return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      } catch (err) {
        if (signal?.aborted) throw err;
        const status = (err as { status?: number }).status;
        const code =
          status === 401 || status === 403 ? 'TOOL_AUTH' : status && status >= 400 && status < 500 && status !== 429 ? 'TOOL_BAD_REQUEST' : 'TOOL_UNAVAILABLE';
        throw new AppError(code, `Embedding with ${model} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}
