/**
 * The OpenSearch backend against real nodes (test/helpers/opensearch.ts): one with the k-NN
 * plugin (approximate search, and forced exact scoring) and one of core OpenSearch only (the
 * exact fallback found by itself). Each mode must return what the store returns for the same
 * chunks, keep tenants apart, forget deleted documents and datasets, and fail clearly when the
 * node is unreachable.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchIndex, type OpenSearchChunkIndex } from '../../src/io/knowledge/openSearchIndex';
import { AppError } from '../../src/errors';
import { rank } from '../../src/io/knowledge/hybrid';
import { cosine, localEmbedding } from '../../src/io/text/localEmbedding';
import type { ChunkHit, NewChunk } from '../../src/io/store/knowledgeTypes';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { openSearchUnavailable, startOpenSearch, type StartedOpenSearch } from '../helpers/opensearch';

const texts = [
  'Temporal workflows replay their history after a worker crash.',
  'PostgreSQL stores rows in heap pages and indexes them with B-trees.',
  'A refund takes five business days to reach the customer account.',
  '退款需要五个工作日才能到账。',
];
const filler = Array.from(
  { length: 40 },
  (_, i) => `Note ${i}: the ${['router', 'battery', 'invoice', 'printer', 'badge'][i % 5]} of site ${i % 7} needs a check in week ${i % 9}.`,
);

const chunksOf = (docId: string, contents: string[]): NewChunk[] =>
  contents.map((content, i) => ({ id: `${docId}-${i}`, content, section: '', position: i, tokens: 10, embedding: localEmbedding(content) }));
const doc = (tenantId: string, datasetId: string, id = randomUUID(), name = 'faq.md') => ({ id, tenant_id: tenantId, dataset_id: datasetId, name });
const search = (tenantId: string, datasetIds: string[], query: string, topK = 10, documentIds?: string[]) => ({
  tenantId,
  datasetIds,
  documentIds,
  query,
  embedding: localEmbedding(query),
  topK,
});
const ranked = (hits: ChunkHit[], query: string) => rank(hits, { query, vectorWeight: 0.7, similarityThreshold: 0.1, page: 1, pageSize: 5 }).chunks;

const unavailable = openSearchUnavailable();
if (unavailable) console.warn(`[test/knowledge] OpenSearch tests skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)('OpenSearch chunk index', () => {
  const nodes: { knn?: StartedOpenSearch; plain?: StartedOpenSearch } = {};
  let store: Store;
  const indices: OpenSearchChunkIndex[] = [];

  beforeAll(async () => {
    // Both nodes at once: each takes ~20 s to start (the first run also builds the launcher).
    const [knn, plain, opened] = await Promise.all([startOpenSearch({ knn: true }), startOpenSearch({ knn: false }), openStore({})]);
    if ('skipped' in knn || 'skipped' in plain) throw new Error('OpenSearch became unavailable');
    Object.assign(nodes, { knn, plain });
    store = opened;
  }, 600_000);
  afterAll(async () => {
    await Promise.all(indices.map((i) => i.close()));
    await Promise.all([nodes.knn?.stop(), nodes.plain?.stop(), store?.close()]);
  }, 60_000);

  const modes = [
    { mode: 'k-NN plugin, approximate', node: 'knn', vectorSearch: 'auto', expectKnn: true },
    { mode: 'k-NN plugin, exact scoring', node: 'knn', vectorSearch: 'exact', expectKnn: false },
    { mode: 'core OpenSearch, no k-NN plugin', node: 'plain', vectorSearch: 'auto', expectKnn: false },
  ] as const;

  describe.each(modes)('$mode', ({ node, vectorSearch, expectKnn }) => {
    let index: OpenSearchChunkIndex;
    beforeAll(() => {
      // A prefix of its own per mode: the modes share a node but never an index.
      index = openSearchIndex({ url: nodes[node]!.url, indexPrefix: `test-${randomUUID().slice(0, 8)}`, vectorSearch });
      indices.push(index);
    });

    it('ranks candidates exactly as the store does, with each candidate’s cosine', async () => {
      const tenantId = `t-${randomUUID()}`;
      const ds = await store.knowledge.datasets.create({
        tenantId,
        name: `kb-${randomUUID()}`,
        embeddingModel: 'local-hash-256',
        chunkMethod: 'naive',
        parserConfig: {},
      });
      const stored = await store.knowledge.documents.create({ tenantId, datasetId: ds.id, name: 'faq.md', type: 'md', content: new Uint8Array() });
      const chunks = chunksOf(stored.id, [...texts, ...filler]);
      await store.knowledge.chunks.replace(stored, chunks);
      await index.indexDocument(stored, chunks);
      expect((await index.indexInfo(256))?.knn).toBe(expectKnn);

      for (const [query, expected] of [
        ['how long does a refund take', texts[2]],
        ['worker crash replay', texts[0]],
        ['退款 工作日', texts[3]],
      ] as const) {
        // top_k above the chunk count: both backends return every candidate, so rankings must agree.
        const fromSearch = await index.candidates(search(tenantId, [ds.id], query, 100));
        const fromStore = await store.knowledge.chunks.candidates(search(tenantId, [ds.id], query, 100));
        const a = ranked(fromSearch, query);
        expect(a[0]!.content).toBe(expected);
        expect(a.map((c) => c.id)).toEqual(ranked(fromStore, query).map((c) => c.id));
        for (const hit of fromSearch)
          expect(hit.vectorSimilarity).toBeCloseTo(cosine(localEmbedding(query), chunks.find((c) => c.id === hit.id)!.embedding), 5);
      }
      expect(fromHitShape((await index.candidates(search(tenantId, [ds.id], 'refund', 1)))[0]!)).toEqual({
        documentId: stored.id,
        documentName: 'faq.md',
        datasetId: ds.id,
        section: '',
      });
    });

    it('returns up to top_k by vector similarity plus up to top_k by keywords', async () => {
      const tenantId = `t-${randomUUID()}`;
      const d = doc(tenantId, 'ds-1');
      const chunks = chunksOf(d.id, filler);
      await index.indexDocument(d, chunks);
      const query = 'battery check at site 3';
      const hits = await index.candidates(search(tenantId, ['ds-1'], query, 5));
      expect(hits.length).toBeLessThanOrEqual(10);
      const byCosine = chunks.map((c) => ({ id: c.id, cos: cosine(localEmbedding(query), c.embedding) })).sort((x, y) => y.cos - x.cos);
      // The vector side comes first, best first: the exact top 5 (HNSW finds them all in so small a graph).
      expect(hits.slice(0, 5).map((h) => h.id)).toEqual(byCosine.slice(0, 5).map((c) => c.id));
      // The keyword side: chunks containing a query term.
      for (const h of hits.slice(5)) expect(h.content.toLowerCase()).toMatch(/battery|check|site|3/);
      // Writing the same chunks again (a retried batch) duplicates nothing.
      await index.indexDocument(d, chunks);
      expect(new Set((await index.candidates(search(tenantId, ['ds-1'], query, 100))).map((h) => h.id)).size).toBe(filler.length);
    });

    it('makes every batch of a document searchable once its last batch is indexed', async () => {
      const tenantId = `t-${randomUUID()}`;
      const d = doc(tenantId, 'ds-batches');
      const chunks = chunksOf(d.id, filler);
      for (let i = 0; i < chunks.length; i += 8) await index.indexDocument(d, chunks.slice(i, i + 8), { more: i + 8 < chunks.length });
      const hits = await index.candidates(search(tenantId, ['ds-batches'], 'printer check', 100));
      expect(new Set(hits.map((h) => h.id)).size).toBe(filler.length);
    });

    it('keeps tenants, datasets and documents apart and forgets what was deleted', async () => {
      const tenantId = `t-${randomUUID()}`;
      const [a, b, c] = [doc(tenantId, 'ds-a'), doc(tenantId, 'ds-a'), doc(tenantId, 'ds-b')];
      await index.indexDocument(a, chunksOf(a.id, [texts[0]!]));
      await index.indexDocument(b, chunksOf(b.id, [texts[2]!]));
      await index.indexDocument(c, chunksOf(c.id, [texts[1]!]));
      const docsFound = async (tenant: string, datasets: string[], documentIds?: string[]) =>
        [...new Set((await index.candidates(search(tenant, datasets, 'worker refund rows', 10, documentIds))).map((h) => h.documentId))].sort();

      expect(await docsFound(tenantId, ['ds-a', 'ds-b'])).toEqual([a.id, b.id, c.id].sort());
      expect(await docsFound(tenantId, ['ds-a'])).toEqual([a.id, b.id].sort());
      expect(await docsFound(tenantId, ['ds-a'], [b.id])).toEqual([b.id]);
      expect(await docsFound(tenantId, ['ds-a'], [])).toEqual([]);
      // Another tenant naming the same datasets sees nothing, and cannot delete anything.
      expect(await docsFound(`t-${randomUUID()}`, ['ds-a', 'ds-b'])).toEqual([]);
      await index.removeDatasets(`t-${randomUUID()}`, ['ds-a', 'ds-b']);
      expect(await docsFound(tenantId, ['ds-a', 'ds-b'])).toHaveLength(3);

      await index.removeDocuments(tenantId, [a.id]);
      expect(await docsFound(tenantId, ['ds-a', 'ds-b'])).toEqual([b.id, c.id].sort());
      await index.removeDatasets(tenantId, ['ds-a']);
      expect(await docsFound(tenantId, ['ds-a', 'ds-b'])).toEqual([c.id]);
    });

    it('keeps each embedding dimension in an index of its own', async () => {
      const tenantId = `t-${randomUUID()}`;
      const d = doc(tenantId, 'ds-small');
      const small = (text: string) => localEmbedding(text, 8);
      await index.indexDocument(d, [
        { id: `${d.id}-0`, content: 'eight dimensions', section: 's', position: 0, tokens: 2, embedding: small('eight dimensions') },
      ]);
      expect((await index.indexInfo(8))?.name).toMatch(/-chunks-8$/);
      const hits = await index.candidates({ tenantId, datasetIds: ['ds-small'], query: 'eight', embedding: small('eight'), topK: 5 });
      expect(hits.map((h) => [h.id, h.section])).toContainEqual([`${d.id}-0`, 's']);
      expect(await index.indexInfo(12)).toBeNull();
      expect(await index.candidates({ tenantId, datasetIds: ['ds-small'], query: 'eight', embedding: localEmbedding('eight', 12), topK: 5 })).toEqual([]);
    });
  });
});

function fromHitShape(h: ChunkHit) {
  return { documentId: h.documentId, documentName: h.documentName, datasetId: h.datasetId, section: h.section };
}

describe('OpenSearch chunk index without a node', () => {
  it('fails with TOOL_UNAVAILABLE naming the node, for searches and writes', async () => {
    const index = openSearchIndex({ url: 'http://user:secret@127.0.0.1:9', timeoutMs: 5000 });
    try {
      const err = await index.candidates(search('t', ['ds'], 'refund')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'TOOL_UNAVAILABLE', message: expect.stringMatching(/^OpenSearch at http:\/\/127\.0\.0\.1:9 is unreachable/) });
      expect((err as Error).message).not.toContain('secret');
      await expect(index.indexDocument(doc('t', 'ds'), chunksOf('x', ['hello']))).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
      await expect(index.removeDocuments('t', ['x'])).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
    } finally {
      await index.close();
    }
  });
});
