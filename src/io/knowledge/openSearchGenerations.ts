/**
 * Atomic re-indexing of a document on OpenSearch, which has no multi-document transaction. An
 * ingestion pipeline writes each run's chunks as a new generation (ids `<docId>-<generation>-<n>`)
 * next to the live one; a marker document per document (`<prefix>-live`, id = document id) names
 * the live generation, and searches drop hits of any other generation. Flipping the marker is a
 * single-document write, and markers are read with a real-time `mget` (no refresh needed), so a
 * search sees the old generation or the new one, never both and never neither; the old
 * generation is deleted after the flip. Chunks with other ids (the built-in indexing, chunks
 * added by hand) are not generations and are always kept.
 */
import type { Client } from '@opensearch-project/opensearch';
import type { ChunkHit } from '../store/knowledgeTypes';

export interface GenerationGate {
  /** Makes `generation` the live one of the document (after its chunks are indexed). */
  mark(doc: { id: string; tenant_id: string; dataset_id: string }, generation: string): Promise<void>;
  /** Forgets the markers of deleted (or re-indexed by the built-in path) documents or datasets. */
  forget(tenantId: string, field: 'document_id' | 'dataset_id', ids: string[]): Promise<void>;
  /** Drops hits whose generation is not their document's live one. */
  filter(hits: ChunkHit[]): Promise<ChunkHit[]>;
}

type Call = <T>(action: string, fn: () => Promise<T>) => Promise<T>;

/** The generation in a pipeline chunk's id, or null for any other chunk. */
export function generationOf(hit: Pick<ChunkHit, 'id' | 'documentId'>): string | null {
  if (!hit.id.startsWith(`${hit.documentId}-`)) return null;
  const m = /^([0-9a-f]{12})-\d+$/.exec(hit.id.slice(hit.documentId.length + 1));
  return m ? m[1]! : null;
}

export function generationGate(client: Client, prefix: string, call: Call): GenerationGate {
  const index = `${prefix}-live`;
  let created: Promise<void> | null = null;
  const ensure = () => {
    created ??= call('create the live-generation index', async () => {
      const exists = await client.indices.exists({ index });
      if (exists.body) return;
      await client.indices
        .create({
          index,
          body: {
            settings: { number_of_shards: 1 },
            mappings: { dynamic: 'strict', properties: { tenant_id: { type: 'keyword' }, dataset_id: { type: 'keyword' }, generation: { type: 'keyword' } } },
          },
        })
        .catch((err: unknown) => {
          if (!/resource_already_exists/.test(JSON.stringify((err as { body?: unknown }).body ?? ''))) throw err;
        });
    });
    created.catch(() => (created = null));
    return created;
  };

  return {
    async mark(doc, generation) {
      await ensure();
      await call('mark the live generation', () =>
        client.index({ index, id: doc.id, body: { tenant_id: doc.tenant_id, dataset_id: doc.dataset_id, generation }, refresh: false }),
      );
    },

    async forget(tenantId, field, ids) {
      if (ids.length === 0) return;
      const byId = field === 'document_id' ? { ids: { values: ids } } : { terms: { dataset_id: ids } };
      await call('forget live generations', () =>
        client.deleteByQuery({
          index,
          allow_no_indices: true,
          ignore_unavailable: true,
          conflicts: 'proceed',
          refresh: true,
          body: { query: { bool: { filter: [{ term: { tenant_id: tenantId } }, byId] } } },
        }),
      );
    },

    async filter(hits) {
      const docs = [...new Set(hits.filter((h) => generationOf(h) !== null).map((h) => h.documentId))];
      if (docs.length === 0) return hits;
      // Real-time get: a marker written a moment ago is seen without waiting for a refresh.
      const res = await call('read live generations', () => client.mget({ index, body: { ids: docs }, realtime: true }, { ignore: [404] }));
      const live = new Map<string, string>();
      const found = (res.body as { docs?: Array<{ _id: string; found?: boolean; _source?: { generation?: string } }> }).docs ?? [];
      for (const d of found) if (d.found && d._source?.generation) live.set(d._id, d._source.generation);
      return hits.filter((h) => {
        const g = generationOf(h);
        return g === null || live.get(h.documentId) === g;
      });
    },
  };
}
