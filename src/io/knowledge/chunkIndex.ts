/**
 * The search backend behind Retrieval. Chunks always live in the store (PostgreSQL/PGlite, the
 * source of truth: listing, counting, re-indexing); a backend answers the candidate query. The
 * default is the store itself (full text + pgvector or exact SQL); OpenSearch is the scale-out
 * option (SEARCH_BACKEND=opensearch), indexed alongside. Both return candidates with the
 * cosine similarity of their embedding, so ranking (src/io/knowledge/hybrid.ts) is the same.
 */
import type { ChunkHit, ChunkSearch, DocumentRecord, NewChunk } from '../store/knowledgeTypes';
import type { Store } from '../store/contract';

export interface ChunkIndex {
  readonly backend: 'postgres' | 'opensearch';
  /**
   * A batch of a document's chunks was (re)written to the store: index it (replacing older
   * versions). `more: true` says further batches of the document follow, so the backend may
   * leave this one unsearchable until the document's last batch (one refresh per document).
   */
  indexDocument(doc: Pick<DocumentRecord, 'id' | 'tenant_id' | 'dataset_id' | 'name'>, chunks: NewChunk[], opts?: { more?: boolean }): Promise<void>;
  /** Documents (or whole datasets) were deleted. */
  removeDocuments(tenantId: string, documentIds: string[]): Promise<void>;
  removeDatasets(tenantId: string, datasetIds: string[]): Promise<void>;
  /**
   * An ingestion pipeline committed a document's chunks as `generation` (ids `<docId>-<generation>-<n>`,
   * indexed before): make it the searchable one at once. Backends whose searches read the store's
   * committed rows (the store itself) omit it; OpenSearch flips a marker (./openSearchGenerations.ts).
   */
  commitGeneration?(doc: Pick<DocumentRecord, 'id' | 'tenant_id' | 'dataset_id'>, generation: string): Promise<void>;
  /** Single chunks were deleted (chunk routes); backends without a copy of their own omit it. */
  removeChunks?(tenantId: string, chunkIds: string[]): Promise<void>;
  /** Candidates by vector similarity and by keywords, each up to `topK`, with cosine similarity. */
  candidates(search: ChunkSearch): Promise<ChunkHit[]>;
  close?(): Promise<void>;
}

/** The store as the search backend: nothing to index beyond the rows themselves. */
export function storeIndex(store: Store): ChunkIndex {
  return {
    backend: 'postgres',
    indexDocument: async () => undefined,
    removeDocuments: async () => undefined,
    removeDatasets: async () => undefined,
    candidates: (search) => store.knowledge.chunks.candidates(search),
  };
}
