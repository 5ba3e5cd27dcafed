/**
 * RAGFlow's dataset side routes as its REST tests (test_metadata_batch_update, test_metadata_config,
 * test_metadata_summary, test_flattened_metadata, test_tags, test_ingestion_*, test_search,
 * test_index_api, test_knowledge_graph) exercise them: document metadata batch update (PATCH
 * documents/metadatas and POST metadata/update), summary, flattened view, auto-metadata config,
 * tags, ingestion summary and logs, dataset search, the (empty) knowledge graph and index tasks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMetadataChanges, metadataSummary } from '../../../api/services/documentMetadata';
import { api, startHarness, type Harness } from '../../helpers/appHarness';

let h: Harness;
let datasetId: string;
let docIds: string[];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any };

const call = async (method: string, path: string, body?: unknown) => (await api(h, method, `/api/v1${path}`, body !== undefined ? { body } : {})).body as Res;

async function upload(dataset: string, names: string[]): Promise<string[]> {
  const form = new FormData();
  for (const n of names) form.append('file', new Blob([new TextEncoder().encode(`content of ${n}`)]), n);
  const res = await fetch(`${h.base}/api/v1/datasets/${dataset}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  return ((await res.json()) as Res).data.map((d: { id: string }) => d.id);
}

const metaOf = async (id: string) => (await call('GET', `/datasets/${datasetId}/documents?id=${id}`)).data.docs[0].meta_fields as Record<string, unknown>;

beforeAll(async () => {
  h = await startHarness();
  datasetId = (await call('POST', '/datasets', { name: 'metadata' })).data.id;
  docIds = await upload(datasetId, ['m1.txt', 'm2.txt', 'm3.txt']);
}, 120_000);
afterAll(async () => h?.close());

describe('RAGFlow REST contract: document metadata', () => {
  it('batch-updates and deletes metadata keys of the selected documents', async () => {
    const up = await call('PATCH', `/datasets/${datasetId}/documents/metadatas`, {
      selector: { document_ids: docIds },
      updates: [
        { key: 'author', value: 'alice' },
        { key: 'status', value: 'new' },
      ],
    });
    expect(up).toEqual({ code: 0, data: { updated: 3, matched_docs: 3 } });
    expect(await metaOf(docIds[0]!)).toEqual({ author: 'alice', status: 'new' });
    const del = await call('POST', `/datasets/${datasetId}/metadata/update`, {
      selector: { document_ids: docIds },
      updates: [{ key: 'author', value: 'bob' }],
      deletes: [{ key: 'status' }],
    });
    expect(del.data).toEqual({ updated: 3, matched_docs: 3 });
    expect(await metaOf(docIds[1]!)).toEqual({ author: 'bob' });
    const filtered = await call('PATCH', `/datasets/${datasetId}/documents/metadatas`, {
      selector: { document_ids: docIds, metadata_condition: { conditions: [{ comparison_operator: 'is', name: 'author', value: 'nobody' }] } },
      updates: [{ key: 'x', value: 1 }],
    });
    expect(filtered.data).toEqual({ updated: 0, matched_docs: 0 });
    const none = await call('PATCH', `/datasets/${datasetId}/documents/metadatas`, { selector: { document_ids: [] }, updates: [{ key: 'x', value: 1 }] });
    expect(none.data).toEqual({ updated: 0, matched_docs: 0 });
  });

  it('refuses bad selectors in RAGFlow words (code 102)', async () => {
    const path = `/datasets/${datasetId}/documents/metadatas`;
    const cases: Array<[unknown, string]> = [
      [{ selector: [1] }, 'selector must be an object.'],
      [{ selector: {}, updates: { key: 'v' } }, 'updates and deletes must be lists.'],
      [{ selector: { metadata_condition: [1] } }, 'metadata_condition must be an object.'],
      [{ selector: { document_ids: 'doc-1' } }, 'document_ids must be a list.'],
      [{ selector: {}, updates: [{ key: '' }] }, 'Each update requires key and value.'],
      [{ selector: {}, deletes: [{ x: 'y' }] }, 'Each delete requires key.'],
      [{ selector: { document_ids: ['nope'] }, updates: [{ key: 'a', value: 1 }] }, `These documents do not belong to dataset ${datasetId}: nope`],
    ];
    for (const [body, message] of cases) expect(await call('PATCH', path, body)).toMatchObject({ code: 102, message });
    expect(await call('PATCH', '/datasets/invalid_dataset_id/documents/metadatas', { selector: {} })).toMatchObject({
      code: 102,
      message: "You don't own the dataset invalid_dataset_id.",
    });
  });

  it('summarises metadata values with counts; flattens them per dataset', async () => {
    await call('PATCH', `/datasets/${datasetId}/documents/${docIds[0]}`, { meta_fields: { tags: ['foo', 'bar'], author: 'alice' } });
    await call('PATCH', `/datasets/${datasetId}/documents/${docIds[1]}`, { meta_fields: { tags: ['foo'], author: 'bob' } });
    await call('PATCH', `/datasets/${datasetId}/documents/${docIds[2]}`, { meta_fields: { tags: ['bar', 'baz'], author: '' } });
    const s = await call('GET', `/datasets/${datasetId}/metadata/summary`);
    expect(s.code).toBe(0);
    expect(s.data.summary.tags).toEqual({
      type: 'list',
      values: [
        ['foo', 2],
        ['bar', 2],
        ['baz', 1],
      ],
    });
    expect(Object.fromEntries(s.data.summary.author.values)).toEqual({ alice: 1, bob: 1, '': 1 });
    expect(await call('GET', '/datasets/invalid_x/metadata/summary')).toEqual({ code: 102, message: "You don't own the dataset invalid_x. " });
    const f = await call('GET', `/datasets/metadata/flattened?dataset_ids=${datasetId}`);
    expect(f.data.tags.foo.sort()).toEqual([docIds[0], docIds[1]].sort());
    expect((await call('GET', '/datasets/metadata/flattened')).code).toBe(102);
    expect((await call('GET', '/datasets/metadata/flattened?dataset_ids=invalid_id')).code).toBe(102);
  });

  it('keeps the auto-metadata config in parser_config; validates it like AutoMetadataConfig', async () => {
    expect(await call('GET', `/datasets/${datasetId}/metadata/config`)).toEqual({ code: 0, data: { metadata: [], built_in_metadata: [] } });
    const cfg = { metadata: [{ key: 'author', type: 'string', description: 'who wrote it' }] };
    const put = await call('PUT', `/datasets/${datasetId}/metadata/config`, cfg);
    expect(put.code).toBe(0);
    expect((await call('GET', `/datasets/${datasetId}/metadata/config`)).data.metadata).toEqual([
      { key: 'author', type: 'string', description: 'who wrote it', enum: null },
    ]);
    expect((await call('PUT', `/datasets/${datasetId}/metadata/config`, { metadata: [{ key: 'a', type: 'blob' }] })).code).toBe(101);
    expect((await call('GET', '/datasets/invalid_dataset_id/metadata/config')).code).toBe(102);
    const docCfg = await call('PUT', `/datasets/${datasetId}/documents/${docIds[0]}/metadata/config`, { metadata: { a: 1 } });
    expect(docCfg.code).toBe(0);
    expect(docCfg.data.parser_config.metadata).toEqual({ a: 1 });
    expect((await call('PUT', `/datasets/${datasetId}/documents/nope/metadata/config`, {})).code).toBe(102);
    expect((await call('PUT', `/datasets/${datasetId}/documents/${docIds[0]}/metadata/config`, {})).code).toBe(101);
  });

  it('answers an unknown key with 401 on these routes', async () => {
    const res = await api(h, 'GET', '/api/v1/datasets/x/metadata/config', { key: null, headers: { authorization: 'Bearer invalid' } });
    expect((res.body as Res).code).toBe(401);
  });
});

describe('RAGFlow REST contract: tags, ingestion, search, graph and index', () => {
  it('tags: empty lists (our chunks carry none); refusals for unknown datasets', async () => {
    expect(await call('GET', `/datasets/${datasetId}/tags`)).toEqual({ code: 0, data: [] });
    expect((await call('GET', '/datasets/invalid_id/tags')).code).toBe(102);
    expect(await call('GET', `/datasets/tags/aggregation?dataset_ids=${datasetId}`)).toEqual({ code: 0, data: [] });
    expect((await call('GET', '/datasets/tags/aggregation')).code).toBe(102);
    expect((await call('DELETE', `/datasets/${datasetId}/tags`, { tags: [] })).code).toBe(0);
    expect((await call('PUT', `/datasets/${datasetId}/tags`, { from_tag: '', to_tag: '' })).code).not.toBe(0);
  });

  it('ingestion summary counts documents; there are no ingestion logs', async () => {
    const s = await call('GET', `/datasets/${datasetId}/ingestions/summary`);
    expect(s.data).toMatchObject({ doc_num: 3, status: { unstart_count: 3, done_count: 0 } });
    expect(await call('GET', `/datasets/${datasetId}/ingestions?page=1&page_size=10`)).toEqual({ code: 0, data: { total: 0, logs: [] } });
    expect(await call('GET', `/datasets/${datasetId}/ingestions?create_date_from=2025-02-01&create_date_to=2025-01-01`)).toEqual({
      code: 0,
      data: { total: 0, logs: [] },
    });
    expect(await call('GET', `/datasets/${datasetId}/ingestions/nope`)).toEqual({ code: 102, message: 'Log not found' });
    expect((await call('GET', '/datasets/invalid_id/ingestions/summary')).code).toBe(102);
  });

  it('search requires a question (101) and answers chunks', async () => {
    expect((await call('POST', `/datasets/${datasetId}/search`, {})).code).toBe(101);
    const r = await call('POST', `/datasets/${datasetId}/search`, { question: 'content', size: 2, similarity_threshold: 0.5 });
    expect(r.code).toBe(0);
    expect(Array.isArray(r.data.chunks)).toBe(true);
    const many = await call('POST', '/datasets/search', { dataset_ids: [datasetId], question: 'content' });
    expect(many.code).toBe(0);
    expect((await call('POST', '/datasets/search', { question: 'content' })).code).toBe(101);
    expect((await call('POST', '/datasets/search', { dataset_ids: ['invalid_id'], question: 'content' })).code).toBe(102);
  });

  it('graph is empty; index tasks are traced as none and deleted as nothing', async () => {
    expect(await call('GET', `/datasets/${datasetId}/graph`)).toEqual({ code: 0, data: { graph: {}, mind_map: {} } });
    expect(await call('GET', `/datasets/${datasetId}/index?type=graph`)).toEqual({ code: 0, data: {} });
    expect((await call('GET', `/datasets/${datasetId}/index?type=nope`)).code).toBe(102);
    expect(await call('DELETE', `/datasets/${datasetId}/raptor`)).toEqual({ code: 0, data: {} });
    expect((await call('DELETE', `/datasets/${datasetId}/invalid_type`)).code).toBe(101);
    const empty = (await call('POST', '/datasets', { name: 'no-docs' })).data.id as string;
    expect(await call('POST', `/datasets/${empty}/index?type=raptor`)).toEqual({ code: 102, message: `No documents in Dataset ${empty}` });
  });
});

describe('RAGFlow REST contract: raw document routes', () => {
  it('downloads a document by its id alone; an empty dataset id, images and artifacts answered as RAGFlow does', async () => {
    const res = await fetch(`${h.base}/api/v1/documents/${docIds[0]}`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(await res.text()).toBe('content of m1.txt');
    expect(await call('GET', '/documents/invalid_document_id')).toEqual({ code: 102, message: 'document not found' });
    expect((await api(h, 'GET', `/api/v1/documents/${docIds[0]}`, { key: null })).status).toBe(401);
    for (const [method, path] of [
      ['GET', '/datasets//documents'],
      ['DELETE', '/datasets//documents'],
      ['POST', '/datasets//documents/parse'],
    ] as const)
      expect(await call(method, path, method === 'GET' ? undefined : { ids: ['x'] })).toEqual({
        code: 100,
        message: "<MethodNotAllowed '405: Method Not Allowed'>",
      });
    expect(await call('GET', '/documents/images/not-a-valid-image-id')).toEqual({ code: 102, message: 'Image not found.' });
    expect(await call('GET', '/documents/artifact/x.exe')).toEqual({ code: 102, message: 'invalid file type' });
    expect(await call('GET', '/documents/artifact/x.png')).toEqual({ code: 102, message: 'Artifact not found.' });
  });
});

describe('metadata helpers', () => {
  it('applies RAGFlow update/delete semantics (list append, match replace, value delete)', () => {
    const m: Record<string, unknown> = { tags: ['a', 'b'], author: 'x' };
    expect(applyMetadataChanges(m, [{ key: 'tags', value: 'c' }], [])).toBe(true);
    expect(m.tags).toEqual(['a', 'b', 'c']);
    applyMetadataChanges(m, [{ key: 'tags', value: 'z', match: 'a' }], [{ key: 'tags', value: 'b' }]);
    expect(m.tags).toEqual(['z', 'c']);
    expect(applyMetadataChanges(m, [{ key: 'author', value: 'y', match: 'nope' }], [])).toBe(false);
    expect(metadataSummary([{ n: 1 }, { n: 2 }, { n: 'x' }]).n!.type).toBe('number');
  });
});
