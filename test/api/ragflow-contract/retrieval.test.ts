/**
 * RAGFlow's retrieval test route as its REST tests (test_retrieval_chunks) call it: its checks in
 * its order and words, an empty question answering nothing, and chunks in RAGFlow's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';

let h: Harness;
let datasetId: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any };

const call = async (method: string, path: string, body?: unknown) => (await api(h, method, `/api/v1${path}`, body !== undefined ? { body } : {})).body as Res;

beforeAll(async () => {
  h = await startHarness();
  datasetId = (await call('POST', '/datasets', { name: 'retrieval' })).data.id;
  const form = new FormData();
  form.append('file', new Blob([new TextEncoder().encode('x')]), 'doc.txt');
  const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  const docId = ((await res.json()) as Res).data[0].id as string;
  await call('POST', `/datasets/${datasetId}/documents/${docId}/chunks`, { content: 'Temporal workflows survive worker crashes' });
}, 120_000);
afterAll(async () => h?.close());

describe('RAGFlow REST contract: retrieval', () => {
  it('checks dataset_ids, ownership and question in RAGFlow order and words', async () => {
    expect(await call('POST', '/retrieval', { question: 'q' })).toEqual({ code: 102, message: '`dataset_ids` is required.' });
    expect(await call('POST', '/retrieval', { question: 'q', dataset_ids: 'x' })).toEqual({ code: 102, message: '`dataset_ids` should be a list' });
    expect(await call('POST', '/retrieval', { question: 'q', dataset_ids: ['unknown'] })).toEqual({ code: 102, message: "You don't own the dataset unknown." });
    expect(await call('POST', '/retrieval', { dataset_ids: [datasetId] })).toEqual({ code: 102, message: '`question` is required.' });
    expect(await call('POST', '/retrieval', { question: ' ', dataset_ids: [datasetId] })).toEqual({ code: 0, data: { total: 0, chunks: [], doc_aggs: {} } });
    expect(await call('POST', '/retrieval', { question: 'q', dataset_ids: [datasetId], document_ids: ['unknown'] })).toEqual({
      code: 102,
      message: "The datasets don't own the document unknown",
    });
  });

  it('finds chunks with RAGFlow keys', async () => {
    const res = await call('POST', '/retrieval', { question: 'worker crashes', dataset_ids: [datasetId], similarity_threshold: 0 });
    expect(res.code).toBe(0);
    expect(res.data.chunks[0]).toMatchObject({ content: 'Temporal workflows survive worker crashes', dataset_id: datasetId });
    expect(res.data.chunks[0]).toHaveProperty('similarity');
    expect(res.data.chunks[0]).toHaveProperty('document_keyword');
  });
});
