/**
 * The edges of RAGFlow's dataset API that the Python SDK (ragflow-sdk 0.27.3) meets, answered as
 * RAGFlow at b1b8cd6 answers them: the embedding model lookup's wording, parser_config floats,
 * `process_begin_at` as a date, a parse list with unknown ids, retrieval weights outside 0..1, and
 * chunk keyword search over the document's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';

let h: Harness;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any };

const call = async (method: string, path: string, body?: unknown) => (await api(h, method, `/api/v1${path}`, body !== undefined ? { body } : {})).body as Res;
/** The response text as sent (floats are told from integers by their text: `2.0` is not `2`). */
const rawText = async (method: string, path: string, body?: unknown) =>
  (
    await fetch(`${h.base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
  ).text();

async function upload(dataset: string, name: string, body: string): Promise<{ id: string }> {
  const form = new FormData();
  form.append('file', new Blob([new TextEncoder().encode(body)]), name);
  const res = await fetch(`${h.base}/api/v1/datasets/${dataset}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  return ((await res.json()) as Res).data[0];
}

async function parsed(dataset: string, docId: string): Promise<Res['data']> {
  for (let i = 0; i < 240; i++) {
    const doc = (await call('GET', `/datasets/${dataset}/documents?id=${docId}`)).data.docs[0];
    if (doc.run === 'DONE' || doc.run === 'FAIL') return doc;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`document ${docId} was not parsed in time`);
}

beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => h?.close());

describe('RAGFlow’s dataset API at the SDK’s edges', () => {
  it('refuses an unknown embedding model with the model lookup’s “not found” wording', async () => {
    // resolve_model_config: the provider is looked up first (api/db/joint_services/tenant_model_service.py).
    expect(await call('POST', '/datasets', { name: 'emb', embedding_model: 'no-such-model@NoSuchFactory' })).toEqual({
      code: 102,
      message: 'Provider NoSuchFactory not found for model no-such-model@NoSuchFactory.',
    });
    expect(await call('POST', '/datasets', { name: 'emb2', embedding_model: 'text-embedding-3-small@OpenAI' })).toEqual({
      code: 102,
      message: 'Provider OpenAI not found for model text-embedding-3-small@OpenAI.',
    });
  });

  it('answers parser_config’s float fields as floats (2.0, 60.0), as pydantic serializes them', async () => {
    const text = await rawText('POST', '/datasets', { name: 'floats' });
    expect(text).toContain('"retry_backoff_seconds":2.0');
    expect(text).toContain('"retry_backoff_max_seconds":60.0');
    const id = (JSON.parse(text) as Res).data.id as string;
    expect(await rawText('GET', `/datasets?id=${id}`)).toContain('"retry_backoff_seconds":2.0');
    // A whole number given for a float field comes back a float too.
    const updated = await rawText('PUT', `/datasets/${id}`, { parser_config: { raptor: { use_raptor: true, clustering_threshold: 1 } } });
    expect((JSON.parse(updated) as Res).code).toBe(0);
    expect(await rawText('GET', `/datasets?id=${id}`)).toContain('"clustering_threshold":1.0');
    // Integer fields stay integers.
    expect(await rawText('GET', `/datasets?id=${id}`)).toContain('"chunk_token_num":512,');
  });

  it('parses the valid documents of a list with an unknown id, and reports the unknown ones as a Python list', async () => {
    const ds = (await call('POST', '/datasets', { name: 'parse-some' })).data.id as string;
    const doc = await upload(ds, 'valid.txt', 'A valid document about parsing lists.');
    const missing = ['0'.repeat(32), 'f'.repeat(32)];
    expect(await call('POST', `/datasets/${ds}/chunks`, { document_ids: [doc.id, ...missing] })).toEqual({
      code: 102,
      message: `Documents not found: ['${missing[0]}', '${missing[1]}']`,
    });
    const done = await parsed(ds, doc.id);
    expect(done.run).toBe('DONE');
    // process_begin_at: a datetime, which RAGFlow's JSON answers as an HTTP date.
    expect(done.process_begin_at).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/);
    expect(Math.abs(Date.parse(done.process_begin_at as string) - Date.now())).toBeLessThan(10 * 60_000);
    // Only unknown ids: nothing to parse, the same report.
    expect(await call('POST', `/datasets/${ds}/documents/parse`, { document_ids: [missing[0]] })).toEqual({
      code: 102,
      message: `Documents not found: ['${missing[0]}']`,
    });
  }, 120_000);

  it('takes a retrieval vector_similarity_weight above 1 as RAGFlow does, and refuses text with Python’s float() error', async () => {
    const ds = (await call('POST', '/datasets', { name: 'weights' })).data.id as string;
    const doc = await upload(ds, 'weights.txt', 'Weighted retrieval of chunks about tulips.');
    await call('POST', `/datasets/${ds}/chunks`, { document_ids: [doc.id] });
    await parsed(ds, doc.id);
    const ten = await call('POST', '/retrieval', { question: 'tulips', dataset_ids: [ds], vector_similarity_weight: 10 });
    expect(ten.code).toBe(0);
    expect(await call('POST', '/retrieval', { question: 'tulips', dataset_ids: [ds], vector_similarity_weight: 'a' })).toEqual({
      code: 100,
      message: 'ValueError("could not convert string to float: \'a\'")',
    });
  }, 120_000);

  it('matches chunk keywords against the document’s name too', async () => {
    const ds = (await call('POST', '/datasets', { name: 'names' })).data.id as string;
    const doc = await upload(ds, 'zanzibar_report.txt', 'Nothing in this text names the island.');
    await call('POST', `/datasets/${ds}/chunks`, { document_ids: [doc.id] });
    await parsed(ds, doc.id);
    const found = await call('GET', `/datasets/${ds}/documents/${doc.id}/chunks?keywords=zanzibar`);
    expect(found.code).toBe(0);
    expect(found.data.total).toBeGreaterThan(0);
    const none = await call('GET', `/datasets/${ds}/documents/${doc.id}/chunks?keywords=kilimanjaro`);
    expect(none.data.total).toBe(0);
  }, 120_000);
});
