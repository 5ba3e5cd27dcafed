/**
 * RAGFlow's document routes as its REST tests (test_file_management_within_dataset) use them:
 * upload renaming `a(1).txt`, RAGFlow's refusals, download of the stored bytes, update (PATCH) with
 * its validation and guards, delete by ids or `delete_all`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';

let h: Harness;
let datasetId: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any };

const call = async (method: string, path: string, body?: unknown) => (await api(h, method, `/api/v1${path}`, body !== undefined ? { body } : {})).body as Res;

async function upload(dataset: string, files: Array<{ name: string; body: string }>): Promise<Res> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([new TextEncoder().encode(f.body)]), f.name);
  const res = await fetch(`${h.base}/api/v1/datasets/${dataset}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  return (await res.json()) as Res;
}

beforeAll(async () => {
  h = await startHarness();
  datasetId = ((await call('POST', '/datasets', { name: 'docs' })) as Res).data.id;
}, 120_000);
afterAll(async () => h?.close());

describe('RAGFlow REST contract: documents', () => {
  it('uploads; a name already in the dataset becomes a(1).txt; refusals in RAGFlow words', async () => {
    const up = await upload(datasetId, [
      { name: 'a.txt', body: 'first' },
      { name: 'a.txt', body: 'second' },
    ]);
    expect(up.code).toBe(0);
    expect(up.data.map((d: { name: string }) => d.name)).toEqual(['a.txt', 'a(1).txt']);
    expect(up.data[0]).toMatchObject({ dataset_id: datasetId, run: 'UNSTART', chunk_method: 'naive', status: '1' });
    expect(await upload('invalid_dataset_id', [{ name: 'x.txt', body: 'x' }])).toEqual({
      code: 102,
      message: "Can't find the dataset with ID invalid_dataset_id!",
    });
    expect(await upload(datasetId, [{ name: 'x.exe', body: 'x' }])).toEqual({ code: 500, message: 'x.exe: This type of file has not been supported yet!' });
  });

  it('downloads the bytes as uploaded; unknown ids answered as RAGFlow does', async () => {
    const [doc] = (await upload(datasetId, [{ name: 'dl.txt', body: 'download me' }])).data;
    const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents/${doc.id}`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('dl.txt');
    expect(await res.text()).toBe('download me');
    expect(await call('GET', `/datasets/${datasetId}/documents/${'0'.repeat(32)}`)).toEqual({ code: 102, message: 'document not found' });
  });

  it('updates a document with RAGFlow validation and guards', async () => {
    const [doc, other] = (
      await upload(datasetId, [
        { name: 'u.txt', body: 'u' },
        { name: 'v.txt', body: 'v' },
      ])
    ).data;
    const path = `/datasets/${datasetId}/documents/${doc.id}`;
    expect((await call('PATCH', path, { name: 'renamed.txt' })).data.name).toBe('renamed.txt');
    expect(await call('PATCH', path, { name: 'renamed' })).toEqual({ code: 101, message: "The extension of file can't be changed" });
    expect(await call('PATCH', path, { name: other.name })).toEqual({ code: 102, message: 'Duplicated document name in the same dataset.' });
    expect(await call('PATCH', path, { name: 0 })).toEqual({ code: 102, message: 'Field: <name> - Message: <Input should be a valid string> - Value: <0>' });
    expect(await call('PATCH', path, { chunk_count: 1 })).toEqual({ code: 102, message: "can't change `chunk_count`" });
    expect(await call('PATCH', path, { progress: 2.0 })).toMatchObject({ code: 102 });
    expect(await call('PATCH', path, { chunk_method: '' })).toEqual({ code: 102, message: '`chunk_method` (empty string) is not valid' });
    expect((await call('PATCH', path, { chunk_method: 'other' })).message).toContain("`chunk_method` other doesn't exist");
    const qa = await call('PATCH', path, { chunk_method: 'qa', meta_fields: { author: 'x', tags: ['a', 1] }, enabled: 0 });
    expect(qa.code).toBe(0);
    expect(qa.data).toMatchObject({ chunk_method: 'qa', meta_fields: { author: 'x', tags: ['a', 1] }, status: '0', run: 'UNSTART' });
    expect((await call('PATCH', path, { meta_fields: [] })).message).toBe('Field: <meta_fields> - Message: <Input should be a valid dictionary> - Value: <[]>');
    expect(await call('PATCH', `/datasets/${datasetId}/documents/${'0'.repeat(32)}`, { name: 'n.txt' })).toEqual({
      code: 102,
      message: "the dataset doesn't own the document",
    });
    const listed = await call('GET', `/datasets/${datasetId}/documents?id=${doc.id}`);
    expect(listed.data.docs[0]).toMatchObject({ id: doc.id, name: 'renamed.txt', chunk_method: 'qa' });
  });

  it('lists with RAGFlow refusals', async () => {
    expect((await call('GET', `/datasets/${datasetId}/documents?name=unknown.txt`)).message).toBe("you don't own the document unknown.txt");
    expect((await call('GET', `/datasets/${datasetId}/documents?orderby=size`)).message).toBe('invalid orderby field: size');
    expect((await call('GET', `/datasets/${datasetId}/documents?page_size=101`)).code).toBe(101);
  });

  it('deletes by ids or delete_all; neither, both or a foreign id is refused', async () => {
    const ds = (await call('POST', '/datasets', { name: 'docs-delete' })).data.id as string;
    const ids = (
      await upload(ds, [
        { name: '1.txt', body: '1' },
        { name: '2.txt', body: '2' },
        { name: '3.txt', body: '3' },
      ])
    ).data.map((d: { id: string }) => d.id) as string[];
    expect((await call('DELETE', `/datasets/${ds}/documents`, { ids: null })).message).toContain('should either provide doc ids or set delete_all(true)');
    expect((await call('DELETE', `/datasets/${ds}/documents`, { ids: [ids[0]], delete_all: true })).message).toContain('should not provide both');
    expect((await call('DELETE', `/datasets/${ds}/documents`, { ids: ['invalid_id'] })).message).toContain('These documents do not belong to dataset');
    expect((await call('DELETE', `/datasets/${ds}/documents`, { ids: [ids[0], ids[0]] })).message).toContain('Duplicate ids:');
    expect(await call('DELETE', `/datasets/${ds}/documents`, { ids: [ids[0]] })).toEqual({ code: 0, data: { deleted: 1 } });
    expect(await call('DELETE', `/datasets/${ds}/documents`, { delete_all: true })).toEqual({ code: 0, data: { deleted: 2 } });
    expect((await call('GET', `/datasets/${ds}/documents`)).data.total).toBe(0);
  });
});
