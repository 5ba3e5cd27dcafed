import { expect, it } from 'vitest';
import { rank } from '../../../src/io/knowledge/hybrid';
import { localEmbedding } from '../../../src/io/text/localEmbedding';
import { prepareVectorColumn } from '../../../src/io/store/chunks';
import type { OpenedDb } from '../../../src/io/store/db';
import { createStore } from '../../../src/io/store/store';
import { newId } from '../../../src/io/store/time';
import { freshTenant, type StoreContext } from './context';

const texts = [
  'Temporal workflows replay their history after a worker crash.',
  'PostgreSQL stores rows in heap pages and indexes them with B-trees.',
  'A refund takes five business days to reach the customer account.',
  '退款需要五个工作日才能到账。',
];

export function knowledgeCases(ctx: StoreContext): void {
  it('keeps datasets and documents per tenant and counts their chunks', async () => {
    const tenantId = freshTenant();
    const k = ctx.store.knowledge;
    const ds = await k.datasets.create({
      tenantId,
      name: 'Manuals',
      embeddingModel: 'local-hash-256',
      chunkMethod: 'naive',
      parserConfig: { chunk_token_num: 128 },
    });
    expect(await k.datasets.find(tenantId, 'manuals')).toMatchObject({ id: ds.id });
    expect(await k.datasets.find(freshTenant(), ds.id)).toBeNull();
    const doc = await k.documents.create({ tenantId, datasetId: ds.id, name: 'a.txt', type: 'txt', content: new TextEncoder().encode('hello') });
    expect(new TextDecoder().decode((await k.documents.content(doc.id))!)).toBe('hello');
    await k.chunks.replace({ ...doc }, [{ id: newId(), content: 'hello', section: '', position: 0, tokens: 1, embedding: localEmbedding('hello') }]);
    await k.documents.setProgress(doc.id, { run: 'DONE', progress: 1, chunkCount: 1, tokenCount: 1 });
    expect(await k.datasets.get(tenantId, ds.id)).toMatchObject({ document_count: 1, chunk_count: 1 });
    expect(await k.documents.delete(tenantId, ds.id, [doc.id])).toEqual([doc.id]);
    expect(await k.chunks.count(tenantId, [ds.id])).toBe(0);
  });

  for (const mode of ['pgvector', 'sql'] as const) {
    it(`finds the right chunk by hybrid search (${mode} vector side)`, async () => {
      const db = ctx.db as OpenedDb;
      if (mode === 'pgvector' && !db.hasVector) return; // the backend has no pgvector: covered by the sql mode
      if (mode === 'pgvector') await prepareVectorColumn(db);
      const store = createStore(db, { vector: mode === 'pgvector' });
      const tenantId = freshTenant();
      const k = store.knowledge;
      const ds = await k.datasets.create({ tenantId, name: `kb-${mode}`, embeddingModel: 'local-hash-256', chunkMethod: 'naive', parserConfig: {} });
      const doc = await k.documents.create({ tenantId, datasetId: ds.id, name: 'faq.md', type: 'md', content: new Uint8Array() });
      await k.chunks.replace(
        doc,
        texts.map((t, i) => ({ id: `${doc.id}-${i}`, content: t, section: '', position: i, tokens: 10, embedding: localEmbedding(t) })),
      );
      const search = async (query: string) =>
        rank(await k.chunks.candidates({ tenantId, datasetIds: [ds.id], query, embedding: localEmbedding(query), topK: 10 }), {
          query,
          vectorWeight: 0.7,
          similarityThreshold: 0.1,
          page: 1,
          pageSize: 3,
        });
      expect((await search('how long does a refund take')).chunks[0]!.content).toBe(texts[2]);
      expect((await search('worker crash replay')).chunks[0]!.content).toBe(texts[0]);
      expect((await search('退款 工作日')).chunks[0]!.content).toBe(texts[3]);
      // Another tenant's search sees nothing.
      expect(
        await k.chunks.candidates({ tenantId: freshTenant(), datasetIds: [ds.id], query: 'refund', embedding: localEmbedding('refund'), topK: 10 }),
      ).toEqual([]);
    });
  }
}
