/**
 * Requests as RAGFlow's clients send them: its SDK and its REST test client put
 * `Content-Type: application/json` on every DELETE/POST, with a body or without one. RAGFlow reads
 * an empty body as `{}`; so do we, on every route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('RAGFlow REST contract: requests', () => {
  it('a body-less POST with Content-Type: application/json is an empty object, not a refusal', async () => {
    const res = await api(h, 'POST', '/api/v1/agents', { raw: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    // RAGFlow's own answer to `{}`: no dsl.
    expect(res.body).toMatchObject({ code: 101 });
    expect(String((res.body as { message: string }).message).toLowerCase()).toContain('no dsl data in request');
  });

  it('a body-less DELETE with Content-Type: application/json is read as {}', async () => {
    const res = await api(h, 'DELETE', '/api/v1/agents/unknown-agent-id', { raw: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect((res.body as { code: number }).code).not.toBe(101);
  });

  it('a body of only whitespace is empty too', async () => {
    const res = await api(h, 'POST', '/api/v1/agents', { raw: '  \n', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect((res.body as { code: number }).code).toBe(101);
    expect(String((res.body as { message: string }).message).toLowerCase()).toContain('no dsl data in request');
  });

  it('invalid JSON is still refused, naming the problem', async () => {
    const res = await api(h, 'POST', '/api/v1/agents', { raw: '{"title":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect((res.body as { code: number }).code).toBe(101);
    expect(String((res.body as { message: string }).message)).toContain('not valid JSON');
  });
});
