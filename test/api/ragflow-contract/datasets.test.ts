/**
 * RAGFlow's dataset routes as its REST tests (test_http_api/test_dataset_management) exercise
 * them: pydantic's wording for every refused field, parser_config defaults per chunk method, a
 * duplicate name renamed `name(1)` on create and refused on update, `delete_all`, `ids: null` and
 * `ids: []`, UUID-checked ids, RAGFlow's codes (101 argument, 102 data).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';

let h: Harness;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
type Res = { code: number; message?: string; data?: any; total_datasets?: number };

const call = async (method: string, path: string, body?: unknown, raw?: string, headers?: Record<string, string>) =>
  (await api(h, method, `/api/v1${path}`, { ...(body !== undefined ? { body } : {}), ...(raw !== undefined ? { raw } : {}), ...(headers ? { headers } : {}) }))
    .body as Res;
const create = (body: unknown) => call('POST', '/datasets', body);
const deleteAll = () => call('DELETE', '/datasets', { ids: null, delete_all: true });

beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => h?.close());

describe('RAGFlow REST contract: datasets', () => {
  it('creates with RAGFlow defaults; a duplicate name (any case) becomes name(1)', async () => {
    await deleteAll();
    const a = await create({ name: 'CaseInsensitive' });
    expect(a.code).toBe(0);
    expect(a.data).toMatchObject({ name: 'CaseInsensitive', permission: 'me', chunk_method: 'naive', avatar: null, description: null, pagerank: 0 });
    expect(a.data.parser_config).toMatchObject({
      chunk_token_num: 512,
      delimiter: '\n',
      raptor: { use_raptor: true },
      graphrag: { use_graphrag: true },
      children_delimiter: '',
    });
    const b = await create({ name: 'caseinsensitive' });
    expect(b.data.name).toBe('caseinsensitive(1)');
    const c = await create({ name: 'caseinsensitive' });
    expect(c.data.name).toBe('caseinsensitive(2)');
  });

  it('refuses bad fields with pydantic wording and code 101', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: '' }, 'String should have at least 1 character'],
      [{ name: ' ' }, 'String should have at least 1 character'],
      [{ name: 'a'.repeat(129) }, 'String should have at most 128 characters'],
      [{ name: 0 }, 'Input should be a valid string'],
      [{ name: 'x', permission: 'ME' }, "Input should be 'me' or 'team'"],
      [{ name: 'x', permission: null }, "Input should be 'me' or 'team'"],
      [
        { name: 'x', chunk_method: 'unknown' },
        "Input should be 'naive', 'book', 'email', 'laws', 'manual', 'one', 'paper', 'picture', 'presentation', 'qa', 'table', 'tag' or 'resume'",
      ],
      [{ name: 'x', avatar: 'abc' }, 'missing MIME prefix. Expected format: data:<mime>;base64,<data>'],
      [{ name: 'x', avatar: 'data:video/mp4;base64,AAAA' }, "Unsupported MIME type. Allowed: ['image/jpeg', 'image/png']"],
      [{ name: 'x', embedding_model: 'no-at-sign' }, 'embedding model identifier must follow <model_name>@<provider> format'],
      [{ name: 'x', embedding_model: '@Builtin' }, 'both model_name and provider must be non-empty strings'],
      [{ name: 'x', parser_config: { chunk_token_num: 3.14 } }, 'Input should be a valid integer'],
      [{ name: 'x', parser_config: { auto_keywords: 33 } }, 'Input should be less than or equal to 32'],
      [{ name: 'x', parser_config: { graphrag: { method: 'unknown' } } }, "Input should be 'light', 'general' or 'ner'"],
      [{ name: 'x', parser_config: { raptor: { prompt: ' ' } } }, 'String should have at least 1 character'],
      [{ name: 'x', parser_config: { delimiter: 'a'.repeat(65536) } }, 'Parser config exceeds size limit (max 65,535 characters)'],
      [{ name: 'x', pagerank: 50 }, 'Extra inputs are not permitted'],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.code, JSON.stringify(body).slice(0, 80)).toBe(101);
      expect(res.message).toContain(message);
    }
    expect((await create({ name: 0 })).message).toBe('Field: <name> - Message: <Input should be a valid string> - Value: <0>');
  });

  it('reads the request body as RAGFlow does: content type, malformed JSON, non-object payloads', async () => {
    expect(await call('POST', '/datasets', undefined, '{"name":"x"}', { 'content-type': 'text/xml' })).toEqual({
      code: 101,
      message: 'Unsupported content type: Expected application/json, got text/xml',
    });
    expect((await call('POST', '/datasets', undefined, 'a')).message).toBe('Malformed JSON syntax: Missing commas/brackets or invalid encoding');
    expect((await call('POST', '/datasets', undefined, '"a"')).message).toBe('Invalid request payload: expected object, got str');
  });

  it('parser_config: given fields kept, the rest defaulted; a chunk method change resets it', async () => {
    const r = await create({ name: 'pc', parser_config: { chunk_token_num: 1024, raptor: { use_raptor: true } } });
    expect(r.data.parser_config).toMatchObject({ chunk_token_num: 1024, raptor: { use_raptor: true }, graphrag: { use_graphrag: false } });
    const up = await call('PUT', `/datasets/${r.data.id}`, { chunk_method: 'qa' });
    expect(up.code).toBe(0);
    expect(up.data.parser_config).toEqual({ raptor: { use_raptor: false }, graphrag: { use_graphrag: false }, image_context_size: 0, table_context_size: 0 });
  });

  it('updates: empty payload, bad id, duplicate name, stored fields (permission team, pagerank, language, connectors)', async () => {
    const r = await create({ name: 'upd' });
    await create({ name: 'taken' });
    expect(await call('PUT', `/datasets/${r.data.id}`, {})).toEqual({ code: 102, message: 'no properties were modified' });
    expect((await call('PUT', '/datasets/not_uuid', { name: 'x' })).message).toContain('Invalid UUID format');
    const foreign = await call('PUT', `/datasets/${'d94a8dc02c9711f0930f7fbc369eab6d'}`, { name: 'x' });
    expect(foreign.code).toBe(102);
    expect(foreign.message).toContain('lacks permission for dataset');
    expect(await call('PUT', `/datasets/${r.data.id}`, { name: 'TAKEN' })).toEqual({ code: 102, message: "Dataset name 'TAKEN' already exists" });
    const ok = await call('PUT', `/datasets/${r.data.id}`, { permission: 'team', pagerank: 50, language: 'English', connectors: [] });
    expect(ok.code).toBe(0);
    expect(ok.data).toMatchObject({ permission: 'team', pagerank: 50, language: 'English', connectors: [] });
    expect((await call('PUT', `/datasets/${r.data.id}`, { pagerank: 101 })).message).toContain('Input should be less than or equal to 100');
    const got = await call('GET', `/datasets/${r.data.id}`);
    expect(got.data).toMatchObject({ id: r.data.id, permission: 'team', pagerank: 50, size: 0, connectors: [] });
  });

  it('lists with RAGFlow paging, ordering and filters', async () => {
    await deleteAll();
    for (let i = 0; i < 5; i++) await create({ name: `dataset_${i}` });
    const page = await call('GET', '/datasets?page=2&page_size=2');
    expect(page.code).toBe(0);
    expect(page.data).toHaveLength(2);
    expect(page.total_datasets).toBe(5);
    expect((await call('GET', '/datasets?page=0')).message).toContain('Input should be greater than or equal to 1');
    expect((await call('GET', '/datasets?page=a')).message).toContain('Input should be a valid integer, unable to parse string as an integer');
    expect((await call('GET', '/datasets?orderby=unknown')).message).toContain("Input should be 'create_time' or 'update_time'");
    expect((await call('GET', '/datasets?desc=unknown')).message).toContain('Input should be a valid boolean, unable to interpret input');
    const asc = await call('GET', '/datasets?desc=n');
    expect(asc.data.map((d: { name: string }) => d.name)).toEqual(['dataset_0', 'dataset_1', 'dataset_2', 'dataset_3', 'dataset_4']);
    expect((await call('GET', '/datasets?name=wrong')).code).toBe(102);
    expect((await call('GET', '/datasets?id=not_uuid')).message).toContain('Invalid UUID format');
    expect((await call('GET', '/datasets?unknown_field=x')).message).toContain('Extra inputs are not permitted');
  });

  it('deletes by ids, never by ids null or [], everything with delete_all; unknown ids refused as a whole', async () => {
    await deleteAll();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ name: `del_${i}` })).data.id);
    expect((await call('DELETE', '/datasets', { ids: [] })).code).toBe(0);
    expect((await call('DELETE', '/datasets', { ids: null })).code).toBe(0);
    expect((await call('GET', '/datasets')).data).toHaveLength(3);
    const partial = await call('DELETE', '/datasets', { ids: [...ids, 'd94a8dc02c9711f0930f7fbc369eab6d'] });
    expect(partial.code).toBe(102);
    expect(partial.message).toContain('lacks permission for datasets');
    expect((await call('DELETE', '/datasets', { ids: [ids[0], ids[0]] })).message).toContain('Duplicate ids:');
    expect((await call('DELETE', '/datasets', { ids: ['not_uuid'] })).message).toContain('Invalid UUID format');
    expect((await call('DELETE', '/datasets', { unknown_field: 'x' })).message).toContain('Extra inputs are not permitted');
    expect((await call('DELETE', '/datasets', undefined, '')).message).toBe('Malformed JSON syntax: Missing commas/brackets or invalid encoding');
    expect(await call('DELETE', '/datasets', { ids: [ids[0]] })).toEqual({ code: 0, data: { success_count: 1 } });
    expect((await call('DELETE', '/datasets', { ids: [ids[0]] })).code).toBe(102);
    expect(await call('DELETE', '/datasets', { delete_all: true })).toEqual({ code: 0, data: { success_count: 2 } });
    expect((await call('GET', '/datasets')).data).toHaveLength(0);
  });

  it("another tenant's dataset is not found, in the same words", async () => {
    const mine = await create({ name: 'mine' });
    const res = (await api(h, 'GET', `/api/v1/datasets/${mine.data.id}`, { key: h.otherKey })).body as Res;
    expect(res.code).toBe(102);
    expect(res.message).toContain('lacks permission for dataset');
  });
});
