/**
 * Inputs a hostile caller sends that once became internal errors: a page number past any integer
 * the store can offset by, multipart bodies without a boundary or cut off mid-part, a NUL in an
 * upload's file name, and files sent under a field other than `file`. Each is refused with a 4xx
 * (RAGFlow routes: code 101) that names the field.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
let agentId: string;
let datasetId: string;
let documentId: string;
type Envelope = { code: number; message?: string; data?: unknown };

const echo = dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['echo {sys.query}'] } } });

beforeAll(async () => {
  h = await startHarness();
  agentId = ((await api(h, 'POST', '/api/v1/agents', { body: { title: `hostile ${Date.now()}`, dsl: echo } })).body as { data: { id: string } }).data.id;
  datasetId = ((await api(h, 'POST', '/api/v1/datasets', { body: { name: `hostile ${Date.now()}` } })).body as { data: { id: string } }).data.id;
  const form = new FormData();
  form.append('file', new Blob(['some text']), 'a.txt');
  const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  documentId = ((await res.json()) as { data: Array<{ id: string }> }).data[0]!.id;
}, 120_000);
afterAll(async () => h?.close());

/** A raw request (no client-side checks), so malformed bodies reach the server as sent. */
function rawRequest(path: string, headers: Record<string, string>, body: Buffer | string): Promise<{ status: number; body: Envelope }> {
  const url = new URL(`${h.base}${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers: { authorization: `Bearer ${h.key}`, ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Envelope }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const HUGE = '99999999999999999999';

describe('a page number no store can reach', () => {
  it.each([
    ['the agent list', () => `/api/v1/agents?page=${HUGE}`],
    ['the session list', () => `/api/v1/agents/${agentId}/sessions?page=${HUGE}`],
    ['the dataset list', () => `/api/v1/datasets?page=${HUGE}`],
    ['the document list', () => `/api/v1/datasets/${datasetId}/documents?page=${HUGE}`],
    ['the chunk list', () => `/api/v1/datasets/${datasetId}/documents/${documentId}/chunks?page=${HUGE}`],
    ['the MCP server list', () => `/api/v1/mcp/servers?page=${HUGE}&page_size=10`],
  ])('is refused on %s with code 101 naming page', async (_name, path) => {
    const res = await api(h, 'GET', path());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 101, message: expect.stringMatching(/page/) as unknown });
  });

  it('is refused on the run list with HTTP 400 naming page', async () => {
    const res = await api(h, 'GET', `/api/v1/runs?page=${HUGE}`);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/page/);
  });

  it('is refused in a retrieval request naming page', async () => {
    const res = await api(h, 'POST', '/api/v1/retrieval', { body: { dataset_ids: [datasetId], question: 'x', page: Number(HUGE) } });
    expect(res.status).toBeLessThan(500);
    expect(res.body).toMatchObject({ code: 101, message: expect.stringMatching(/page/) as unknown });
  });
});

const uploadRoutes = [
  ['the agent upload', () => `/api/v1/agents/${agentId}/upload`],
  ['the document upload', () => `/api/v1/datasets/${datasetId}/documents`],
] as const;

describe.each(uploadRoutes)('multipart bodies on %s', (_name, path) => {
  it('refuses a multipart body without a boundary, naming the Content-Type', async () => {
    const res = await rawRequest(path(), { 'content-type': 'multipart/form-data' }, 'whatever');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 101, message: expect.stringMatching(/boundary/) as unknown });
  });

  it('refuses a multipart body cut off mid-part', async () => {
    const body = '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhalf a fi';
    const res = await rawRequest(path(), { 'content-type': 'multipart/form-data; boundary=XYZ' }, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 101, message: expect.stringMatching(/multipart body .*(ended|incomplete|truncated)/i) as unknown });
  });

  it('refuses a NUL in the file name, naming the file name', async () => {
    const body = Buffer.concat([
      Buffer.from('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a'),
      Buffer.from([0]),
      Buffer.from('b.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XYZ--\r\n'),
    ]);
    const res = await rawRequest(path(), { 'content-type': 'multipart/form-data; boundary=XYZ' }, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 101, message: expect.stringMatching(/file name.*NUL/i) as unknown });
  });

  it('refuses a file sent under a field other than `file`, naming the field', async () => {
    const form = new FormData();
    form.append('upload', new Blob(['hello']), 'a.txt');
    const res = await fetch(`${h.base}${path()}`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
    const body = (await res.json()) as Envelope;
    expect(body).toMatchObject({ code: 101, message: expect.stringContaining('"upload"') as unknown });
    expect(body.message).toContain('"file"');
  });
});
