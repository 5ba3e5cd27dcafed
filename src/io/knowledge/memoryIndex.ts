/**
 * Memory messages on the knowledge search backend. The store holds every message (the source of
 * truth: status, forgetting, filters); with OpenSearch (SEARCH_BACKEND=opensearch) each
 * searchable message is also indexed as a one-chunk document of a per-memory pseudo-dataset, so
 * a memory search takes its vector and full-text candidates from OpenSearch, as dataset search
 * does, and the store then keeps those still enabled, unforgotten and matching the filters.
 */
import type { Store } from '../store/contract';
import type { MemoryHit, MemorySearch } from '../store/memoryTypes';
import { countTokens } from '../text/tokens';
import type { ChunkIndex } from './chunkIndex';

/** The pseudo-dataset a memory's messages are indexed under. */
export const memoryDatasetId = (memoryId: string) => `memory-${memoryId}`;
const documentId = (memoryId: string, messageId: number) => `memory-${memoryId}-${messageId}`;

const separate = (index: ChunkIndex | undefined): index is ChunkIndex => index?.backend === 'opensearch';

/** Indexes (again: indexing replaces) messages of one memory. */
export async function indexMemoryMessages(
  index: ChunkIndex | undefined,
  tenantId: string,
  memoryId: string,
  messages: Array<{ messageId: number; content: string; embedding: number[] }>,
): Promise<void> {
  if (!separate(index)) return;
  for (const m of messages) {
    const doc = { id: documentId(memoryId, m.messageId), tenant_id: tenantId, dataset_id: memoryDatasetId(memoryId), name: '' };
    await index.indexDocument(doc, [
      { id: `${doc.id}-0`, content: m.content, section: '', position: 0, tokens: countTokens(m.content), embedding: m.embedding },
    ]);
  }
}

/** Takes messages out of the index (deleted, disabled or forgotten). */
export async function unindexMemoryMessages(index: ChunkIndex | undefined, tenantId: string, memoryId: string, messageIds: number[]): Promise<void> {
  if (!separate(index) || messageIds.length === 0) return;
  await index.removeDocuments(
    tenantId,
    messageIds.map((id) => documentId(memoryId, id)),
  );
}

/** Takes a deleted memory's messages out of the index. */
export async function unindexMemory(index: ChunkIndex | undefined, tenantId: string, memoryId: string): Promise<void> {
  if (separate(index)) await index.removeDatasets(tenantId, [memoryDatasetId(memoryId)]);
}

/** Search candidates: from OpenSearch (then checked against the store), else the store's own search. */
export async function memoryCandidates(store: Store, index: ChunkIndex | undefined, s: MemorySearch): Promise<MemoryHit[]> {
  if (!separate(index)) return store.memories.messages.candidates(s);
  const hits = await index.candidates({
    tenantId: s.tenantId,
    datasetIds: s.memoryIds.map(memoryDatasetId),
    query: s.query,
    embedding: s.embedding,
    topK: s.limit,
  });
  const similarity = new Map<number, number>();
  for (const h of hits) {
    const id = Number(h.documentId.slice(h.documentId.lastIndexOf('-') + 1));
    if (Number.isSafeInteger(id)) similarity.set(id, Math.max(similarity.get(id) ?? -1, h.vectorSimilarity));
  }
  const kept = await store.memories.messages.byIds(s.tenantId, s.memoryIds, [...similarity.keys()], s);
  return kept.map((m) => ({ ...m, vectorSimilarity: similarity.get(m.message_id) ?? 0 }));
}
