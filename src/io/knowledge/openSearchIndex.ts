/**
 * OpenSearch as the search backend (SEARCH_BACKEND=opensearch). Chunks stay in PostgreSQL, the
 * source of truth; OpenSearch holds a search copy written as documents are indexed and deleted.
 * `candidates` answers like the store does (src/io/store/chunks.ts): up to top_k chunks by vector
 * similarity plus up to top_k by keywords, each with the cosine similarity of its embedding, so
 * the shared ranking (src/io/knowledge/hybrid.ts) gives the same results on either backend.
 * Layout and queries: ./openSearchBodies.ts.
 */
import { Client, errors, type API } from '@opensearch-project/opensearch';
import { normalize } from '../text/localEmbedding';
import { AppError } from '../../errors';
import type { ChunkSearch } from '../store/knowledgeTypes';
import type { ChunkIndex } from './chunkIndex';
import { generationGate } from './openSearchGenerations';
import { chunkDocument, hitToChunk, indexBody, indexName, indexPattern, keywordSearchBody, vectorSearchBody } from './openSearchBodies';

export interface OpenSearchIndexOptions {
  /** The cluster, e.g. `https://search.internal:9200`. */
  url: string;
  username?: string;
  password?: string;
  /** Index names start with it (`<prefix>-chunks-<dim>`); default `agent-canvas`. */
  indexPrefix?: string;
  /**
   * `auto` (default): new indices get an approximate k-NN field where the k-NN plugin is installed,
   * exact scoring otherwise. `exact`: never use k-NN (exact Painless scoring over every chunk).
   */
  vectorSearch?: 'auto' | 'exact';
  /**
   * How a document's last batch becomes searchable before `indexDocument` returns (a document
   * reported DONE must be searchable; earlier batches of it do not wait). `wait_for` (default):
   * wait for the next scheduled refresh (≤ 1 s per document; concurrent writers share one
   * refresh). `true`: refresh at once (faster for one document, one refresh per document under
   * heavy concurrent indexing).
   */
  refresh?: 'wait_for' | 'true';
  /** Request timeout, ms (default 30 s). */
  timeoutMs?: number;
}

/** How a chunk index searches vectors. */
export interface IndexInfo {
  name: string;
  /** Whether the index has the k-NN plugin's `embedding_knn` field (approximate search). */
  knn: boolean;
}

/** The OpenSearch backend, plus what it found out about each dimension's index. */
export interface OpenSearchChunkIndex extends ChunkIndex {
  readonly backend: 'opensearch';
  /** The index for embeddings of `dim` dimensions, or null while there is none. */
  indexInfo(dim: number): Promise<IndexInfo | null>;
  close(): Promise<void>;
}

// k-NN's hard limit on `k` (and a sane bound on result windows).
const MAX_K = 10_000;
const BULK_CHUNKS = 500;

function reasonOf(err: errors.ResponseError): string {
  const body = err.body as { error?: { type?: string; reason?: string; root_cause?: Array<{ reason?: string }> } | string } | undefined;
  const e = body?.error;
  if (typeof e === 'string') return e;
  return e?.root_cause?.[0]?.reason ?? e?.reason ?? err.message;
}

/** Whether index creation failed because the cluster has no k-NN plugin. */
function isKnnUnsupported(err: unknown): boolean {
  return err instanceof errors.ResponseError && err.statusCode === 400 && /knn/i.test(reasonOf(err));
}

function isAlreadyExists(err: unknown): boolean {
  return err instanceof errors.ResponseError && /resource_already_exists/.test(JSON.stringify(err.body ?? ''));
}

/** Creates the OpenSearch backend; indices are created on first use. */
export function openSearchIndex(o: OpenSearchIndexOptions): OpenSearchChunkIndex {
  const prefix = o.indexPrefix || 'agent-canvas';
  const where = (() => {
    try {
      const u = new URL(o.url);
      return `${u.protocol}//${u.host}`; // never credentials from the URL in a message
    } catch {
      return 'the configured OPENSEARCH_URL';
    }
  })();
  // Retries belong to Temporal (activity retry policies), as with every other service we call.
  const client = new Client({
    node: o.url,
    maxRetries: 0,
    requestTimeout: o.timeoutMs ?? 30_000,
    ...(o.username ? { auth: { username: o.username, password: o.password ?? '' } } : {}),
  });

  /** Runs one request, turning client errors into AppErrors that say what failed and whether to retry. */
  const call = async <T>(action: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw toAppError(err, action);
    }
  };
  const toAppError = (err: unknown, action: string): AppError => {
    if (err instanceof AppError) return err;
    if (err instanceof errors.ResponseError) {
      const status = err.statusCode;
      const code = status === 401 || status === 403 ? 'TOOL_AUTH' : status === 429 || status >= 500 ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST';
      return new AppError(code, `OpenSearch at ${where} refused to ${action} (HTTP ${status}): ${reasonOf(err)}`);
    }
    const message = err instanceof Error ? err.message : String(err);
    return new AppError('TOOL_UNAVAILABLE', `OpenSearch at ${where} is unreachable (${action}): ${message}`);
  };

  const refresh = o.refresh === 'true' ? true : 'wait_for';
  const generations = generationGate(client, prefix, call);
  const known = new Map<number, Promise<IndexInfo>>();

  const readInfo = async (dim: number): Promise<IndexInfo | null> => {
    const name = indexName(prefix, dim);
    const res = await call('read an index mapping', () => client.indices.getMapping({ index: name }, { ignore: [404] }));
    if (res.statusCode === 404) return null;
    const props = (res.body[name]?.mappings?.properties ?? {}) as Record<string, { type?: string }>;
    return { name, knn: props.embedding_knn?.type === 'knn_vector' };
  };

  const create = async (dim: number): Promise<IndexInfo> => {
    const existing = await readInfo(dim);
    if (existing) return existing;
    const name = indexName(prefix, dim);
    const attempt = async (knn: boolean): Promise<IndexInfo> => {
      try {
        await client.indices.create({ index: name, body: indexBody(dim, knn) as API.Indices_Create_RequestBody });
        return { name, knn };
      } catch (err) {
        if (isAlreadyExists(err)) return (await readInfo(dim)) ?? { name, knn };
        if (knn && isKnnUnsupported(err)) return attempt(false); // no k-NN plugin: exact scoring
        throw toAppError(err, `create index ${name}`);
      }
    };
    return attempt(o.vectorSearch !== 'exact');
  };

  /** The index for `dim`, created on first use; remembered once it exists. */
  const ensure = (dim: number): Promise<IndexInfo> => {
    let p = known.get(dim);
    if (!p) {
      p = create(dim);
      known.set(dim, p);
      p.catch(() => known.delete(dim));
    }
    return p;
  };

  /** The index for `dim` if it exists (not creating it: searches of an empty backend find nothing). */
  const lookup = async (dim: number): Promise<IndexInfo | null> => {
    const p = known.get(dim);
    if (p) return p;
    const info = await readInfo(dim);
    if (info) known.set(dim, Promise.resolve(info));
    return info;
  };

  const deleteWhere = async (tenantId: string, field: 'document_id' | 'dataset_id' | '_id', ids: string[]) => {
    if (ids.length === 0) return;
    await call(`delete chunks by ${field}`, () =>
      client.deleteByQuery({
        index: indexPattern(prefix),
        allow_no_indices: true,
        ignore_unavailable: true,
        conflicts: 'proceed',
        // Deleted chunks must vanish from the very next search.
        refresh: true,
        body: { query: { bool: { filter: [{ term: { tenant_id: tenantId } }, { terms: { [field]: ids } }] } } },
      }),
    );
  };

  return {
    backend: 'opensearch',
    indexInfo: lookup,

    async indexDocument(doc, chunks, opts) {
      // Only a document's last batch waits to be searchable: that refresh covers the earlier ones.
      const refreshNow = opts?.more ? false : refresh;
      const byDim = new Map<number, typeof chunks>();
      for (const c of chunks) byDim.set(c.embedding.length, [...(byDim.get(c.embedding.length) ?? []), c]);
      for (const [dim, group] of byDim) {
        const info = await ensure(dim);
        for (let i = 0; i < group.length; i += BULK_CHUNKS) {
          // The chunk id is the document id: a retried batch overwrites what it wrote before.
          const body = group
            .slice(i, i + BULK_CHUNKS)
            .flatMap((c) => [{ index: { _index: info.name, _id: c.id } }, chunkDocument(doc, c, normalize(c.embedding), info.knn)]);
          const res = await call(`index the chunks of ${doc.name}`, () => client.bulk({ body, refresh: refreshNow }));
          if (res.body.errors) {
            const failed = res.body.items.map((item) => Object.values(item)[0]).find((r) => r?.error);
            const reason = failed?.error ? `${failed.error.type}: ${failed.error.reason ?? ''}` : 'unknown error';
            throw new AppError(
              (failed?.status ?? 500) >= 500 || failed?.status === 429 ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST',
              `OpenSearch at ${where} rejected chunks of ${doc.name}: ${reason}`,
            );
          }
        }
      }
    },

    async removeDocuments(tenantId, documentIds) {
      await deleteWhere(tenantId, 'document_id', documentIds);
      await generations.forget(tenantId, 'document_id', documentIds);
    },
    async removeDatasets(tenantId, datasetIds) {
      await deleteWhere(tenantId, 'dataset_id', datasetIds);
      await generations.forget(tenantId, 'dataset_id', datasetIds);
    },
    commitGeneration: (doc, generation) => generations.mark(doc, generation),
    removeChunks: (tenantId, chunkIds) => deleteWhere(tenantId, '_id', chunkIds),

    async candidates(s: ChunkSearch) {
      if (s.datasetIds.length === 0 || (s.documentIds && s.documentIds.length === 0) || s.embedding.length === 0) return [];
      const info = await lookup(s.embedding.length);
      if (!info) return [];
      const q = normalize(s.embedding);
      const topK = Math.min(MAX_K, Math.max(1, s.topK));
      // A zero query vector has no direction: every chunk would tie at 0, so only keywords count.
      const bodies = [...(q.some((x) => x !== 0) ? [vectorSearchBody(s, q, topK, info.knn)] : []), ...(s.query.trim() ? [keywordSearchBody(s, q, topK)] : [])];
      if (bodies.length === 0) return [];
      // Both searches in one round trip.
      const res = await call('search chunks', () => client.msearch({ body: bodies.flatMap((b) => [{ index: info.name }, b]) }));
      const hits = res.body.responses.flatMap((r) => {
        if ('error' in r && r.error)
          throw new AppError(
            (r.status ?? 500) >= 500 || r.status === 429 ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST',
            `OpenSearch at ${where} failed to search chunks: ${r.error.root_cause?.[0]?.reason ?? r.error.reason ?? r.error.type}`,
          );
        return 'hits' in r ? r.hits.hits.map(hitToChunk) : [];
      });
      return generations.filter(hits);
    },

    async close() {
      await client.close();
    },
  };
}
