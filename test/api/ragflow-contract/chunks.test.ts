/**
 * RAGFlow's chunk routes of a document as its REST tests (test_chunk_management_within_dataset)
 * use them: add (counted on the document, searchable at once), list, get, update (PATCH and PUT),
 * switch off, delete by ids or `delete_all`, with RAGFlow's codes and words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';

let h: Harness;
let base: string;
let datasetId: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any };

const call = async (method: string, path: string, body?: unknown) => (await api(h, method, `/api/v1${path}`, body !== undefined ? { body } : {})).body as Res;

beforeAll(async () => {
  h = await startHarness();
  datasetId = (await call('POST', '/datasets', { name: 'chunks' })).data.id;
  const form = new FormData();
  form.append('file', new Blob([new TextEncoder().encode('a document')]), 'doc.txt');
  const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  const docId = ((await res.json()) as Res).data[0].id as string;
  base = `/datasets/${datasetId}/documents/${docId}/chunks`;
}, 120_000);
afterAll(async () => h?.close());

describe('RAGFlow REST contract: chunks', () => {
  it('adds chunks, counted on the document; refusals in RAGFlow words', async () => {
    const added = await call('POST', base, {
      content: 'the refund policy allows returns within 30 days',
      important_keywords: ['refund'],
      questions: [' how to return? '],
    });
    expect(added.code).toBe(0);
    expect(added.data.chunk).toMatchObject({
      content: 'the refund policy allows returns within 30 days',
      important_keywords: ['refund'],
      questions: ['how to return?'],
      dataset_id: datasetId,
    });
    expect(await call('POST', base, { content: ' ' })).toEqual({ code: 102, message: '`content` is required' });
    expect(await call('POST', base, { content: 'x', important_keywords: 'a' })).toEqual({
      code: 102,
      message: '`important_keywords` is required to be a list',
    });
    expect(await call('POST', `/datasets/${datasetId}/documents/${'0'.repeat(32)}/chunks`, { content: 'x' })).toEqual({
      code: 102,
      message: `you don't own the document ${'0'.repeat(32)}`,
    });
    const list = await call('GET', base);
    expect(list.data.total).toBe(1);
    expect(list.data.doc.chunk_count).toBe(1);
    expect(list.data.chunks[0]).toMatchObject({ id: added.data.chunk.id, available: true, important_keywords: ['refund'] });
    const got = await call('GET', `${base}/${added.data.chunk.id}`);
    expect(got.data).toMatchObject({ id: added.data.chunk.id, content_with_weight: 'the refund policy allows returns within 30 days' });
  });

  it('updates a chunk (PATCH or PUT) and it is searchable with its new text', async () => {
    const id = (await call('POST', base, { content: 'old text about shipping' })).data.chunk.id as string;
    expect(await call('PATCH', `${base}/${id}`, { content: 'new text about invoices', available: false })).toEqual({ code: 0 });
    expect((await call('GET', `${base}?id=${id}`)).data.chunks[0]).toMatchObject({ content: 'new text about invoices', available: false });
    expect(await call('PUT', `${base}/${id}`, { available: true })).toEqual({ code: 0 });
    expect((await call('PATCH', `${base}/${id}`, { important_keywords: [1] })).code).toBe(100);
    expect(await call('PATCH', `${base}/unknown`, { content: 'x' })).toEqual({ code: 102, message: "Can't find this chunk unknown" });
    const found = await call('POST', '/retrieval', { question: 'invoices', dataset_ids: [datasetId], similarity_threshold: 0 });
    expect(found.data.chunks.map((c: { id: string }) => c.id)).toContain(id);
  });

  it('deletes by ids (all or nothing) and with delete_all', async () => {
    const a = (await call('POST', base, { content: 'to delete one' })).data.chunk.id as string;
    expect((await call('DELETE', base, { chunk_ids: [a, 'missing'] })).message).toBe('rm_chunk deleted chunks 1, expect 2');
    expect(await call('DELETE', base, {})).toEqual({ code: 0 });
    const all = await call('DELETE', base, { chunk_ids: null, delete_all: true });
    expect(all.code).toBe(0);
    expect(all.message).toMatch(/^deleted \d+ chunks$/);
    expect((await call('GET', base)).data.total).toBe(0);
  });
});
