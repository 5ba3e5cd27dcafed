/**
 * The embedding and rerank requests a knowledge search makes, reported as they end to whoever
 * traces a run's model calls (the `toolInvoke` activity, activities/serviceCallTrace.ts): what
 * was sent, the model, when and how long, the provider's token count, the error of a failed one.
 * Only requests to a provider are reported; the offline embedding sends none.
 */
import type { Embedder } from './embedder';
import { rerankScores, type RerankSettings } from './rerank';

export interface ServiceCall {
  kind: 'embedding' | 'rerank';
  /** The model id as the dataset (embedding) or the Retrieval (`rerank_id`) names it. */
  model: string;
  /** The text embedded, or the query the documents were reranked against. */
  query: string;
  /** The documents reranked (rerank only). */
  documents?: string[];
  /** ms since epoch the request was sent. */
  startedAt: number;
  durationMs: number;
  /** The provider's token count; null when it reported none (never an estimate). */
  promptTokens: number | null;
  /** What came back, in a few words (`1 vector of 1536 dimensions`); null when it failed. */
  summary: string | null;
  /** Why it failed; null when it answered. */
  error: unknown;
}

/** Told of each request when it ends; it must not throw (a trace that cannot be written is its own business). */
export type ServiceCallSink = (call: ServiceCall) => Promise<void>;

type Sent = Pick<ServiceCall, 'kind' | 'model' | 'query' | 'documents'>;

async function reported<T>(sink: ServiceCallSink, sent: Sent, send: () => Promise<{ value: T; promptTokens: number | null; summary: string }>): Promise<T> {
  const startedAt = Date.now();
  try {
    const answer = await send();
    await sink({ ...sent, startedAt, durationMs: Date.now() - startedAt, promptTokens: answer.promptTokens, summary: answer.summary, error: null });
    return answer.value;
  } catch (err) {
    await sink({ ...sent, startedAt, durationMs: Date.now() - startedAt, promptTokens: null, summary: null, error: err });
    throw err;
  }
}

/** The embedding of one query, reported to `sink` when it is a provider's. */
export async function embedQuery(embedder: Embedder, query: string, signal?: AbortSignal, sink?: ServiceCallSink): Promise<number[]> {
  const viaProvider = embedder.embedReporting?.bind(embedder);
  if (!sink || !viaProvider) return (await embedder.embed([query], signal))[0]!;
  return reported(sink, { kind: 'embedding', model: embedder.model, query }, async () => {
    const { vectors, promptTokens } = await viaProvider([query], signal);
    return { value: vectors[0]!, promptTokens, summary: `1 vector of ${vectors[0]?.length ?? 0} dimensions` };
  });
}

/** Rerank scores of `documents` against `query` (src/io/knowledge/rerank.ts), reported to `sink`. */
export async function rerankReported(
  s: RerankSettings,
  model: string,
  query: string,
  documents: string[],
  signal?: AbortSignal,
  sink?: ServiceCallSink,
): Promise<number[]> {
  const send = async () => {
    const { scores, promptTokens } = await rerankScores(s, model, query, documents, signal);
    const best = scores.length ? Math.max(...scores) : 0;
    return { value: scores, promptTokens, summary: `${scores.length} scores, the best ${best.toFixed(3)}` };
  };
  if (!sink) return (await send()).value;
  return reported(sink, { kind: 'rerank', model, query, documents }, send);
}
