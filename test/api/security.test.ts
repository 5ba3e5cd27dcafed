/**
 * API keys, tenant isolation and hostile input: every answer is a clear 4xx (or RAGFlow's
 * envelope), never a 500, and nothing of another tenant shows.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, TENANT, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { storeDb } from '../../src/io/store/storeDb';

let h: Harness;
let agentId: string;
let sessionId: string;
let runId: string;

const canvas = dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['echo {sys.query}'] } } });

beforeAll(async () => {
  h = await startHarness();
  const created = await api(h, 'POST', '/api/v1/agents', { body: { title: 'private agent', dsl: canvas } });
  agentId = (created.body as { data: { id: string } }).data.id;
  const reply = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'secret', stream: false } });
  const data = (reply.body as { data: { session_id: string; task_id: string } }).data;
  sessionId = data.session_id;
  runId = data.task_id;
});
afterAll(async () => h?.close());

describe('API keys', () => {
  it('answers a RAGFlow route without a key with HTTP 401 and code 401, as RAGFlow does', async () => {
    const res = await api(h, 'GET', '/api/v1/agents', { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 401, message: "<Unauthorized '401: Unauthorized'>", data: null });
  });

  it('answers a RAGFlow route with an unknown key with HTTP 401 and code 401, as current RAGFlow does', async () => {
    const res = await api(h, 'GET', '/api/v1/agents', { key: 'not-a-key' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 401, message: "<Unauthorized '401: Unauthorized'>", data: null });
  });

  it('answers our routes with 401 for a missing or unknown key', async () => {
    expect((await api(h, 'GET', `/api/v1/runs/${runId}`, { key: null })).status).toBe(401);
    expect((await api(h, 'GET', `/api/v1/runs/${runId}`, { key: 'nope' })).status).toBe(401);
    expect((await api(h, 'POST', '/v1/chat/completions', { key: null, body: {} })).status).toBe(401);
  });

  it('stores keys as HMAC(server secret, key) under a random key id, with no 8-character piece of the key', async () => {
    const rows = await storeDb(h.store).query<Record<string, unknown>>('SELECT * FROM api_keys WHERE tenant_id = $1', [TENANT]);
    expect(rows.rows).toEqual([
      expect.objectContaining({ key_id: expect.stringMatching(/^[0-9a-f]{32}$/), key_hash: createHmac('sha256', h.apiKeySecret).update(h.key).digest('hex') }),
    ]);
    const stored = JSON.stringify(rows.rows);
    for (let i = 0; i + 8 <= h.key.length; i++) expect(stored).not.toContain(h.key.slice(i, i + 8));
  });

  it('lets /health through without a key', async () => {
    const res = await api(h, 'GET', '/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });
});

describe('tenant isolation', () => {
  const other = () => ({ key: h.otherKey });

  it('hides another tenant’s agent everywhere', async () => {
    expect((await api(h, 'GET', `/api/v1/agents/${agentId}`, other())).body).toMatchObject({ code: 102, message: 'canvas not found.' });
    const list = (await api(h, 'GET', '/api/v1/agents', other())).body as { data: { canvas: Array<{ id: string }> } };
    expect(list.data.canvas.map((c) => c.id)).not.toContain(agentId);
    expect((await api(h, 'PUT', `/api/v1/agents/${agentId}`, { ...other(), body: { title: 'mine now' } })).body).toMatchObject({ code: 103 });
    expect((await api(h, 'DELETE', `/api/v1/agents/${agentId}`, other())).body).toMatchObject({ code: 103 });
    expect((await api(h, 'GET', `/api/v1/agents/${agentId}/versions`, other())).body).toMatchObject({ code: 103 });
    expect((await api(h, 'GET', `/api/v1/agents/${agentId}/sessions`, other())).body).toMatchObject({ code: 103 });
    expect(
      (await api(h, 'POST', '/api/v1/agents/chat/completions', { ...other(), body: { agent_id: agentId, query: 'x', stream: false } })).body,
    ).toMatchObject({ code: 103 });
    expect((await api(h, 'POST', '/v1/chat/completions', { ...other(), body: { model: agentId, messages: [{ role: 'user', content: 'x' }] } })).status).toBe(
      404,
    );
    // Still there for its owner.
    expect((await api(h, 'GET', `/api/v1/agents/${agentId}`)).body).toMatchObject({ code: 0 });
  });

  it('hides another tenant’s runs and sessions', async () => {
    expect((await api(h, 'GET', `/api/v1/runs/${runId}`, other())).status).toBe(404);
    expect((await api(h, 'GET', `/api/v1/runs/${runId}/events`, other())).status).toBe(404);
    expect((await api(h, 'POST', `/api/v1/runs/${runId}/cancel`, other())).status).toBe(404);
    const cancel = await api(h, 'POST', `/api/v1/tasks/${runId}/cancel`, other());
    expect(cancel.body).toMatchObject({ code: 0, data: true });
    expect((await api(h, 'GET', `/api/v1/runs/${runId}`)).body).toMatchObject({ status: 'finished' });
  });
});

describe('hostile input', () => {
  it('answers malformed JSON with 400 naming the problem (RAGFlow route: code 101)', async () => {
    const ours = await api(h, 'POST', '/api/v1/canvases/validate', { raw: '{"dsl": ' });
    expect(ours.status).toBe(400);
    expect((ours.body as { message: string }).message).toMatch(/not valid JSON/);
    const theirs = await api(h, 'POST', '/api/v1/agents', { raw: '{"title": oops}' });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ code: 101 });
  });

  it('names each wrong field of our routes by path', async () => {
    const res = await api(h, 'POST', '/v1/chat/completions', { body: { model: 5, messages: [{ role: 'wizard' }] } });
    expect(res.status).toBe(400);
    const paths = (res.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['$.body.model', '$.body.messages[0].role']));
  });

  it('refuses an oversized body with 413', async () => {
    const res = await api(h, 'POST', '/api/v1/canvases/validate', { raw: JSON.stringify({ dsl: { junk: 'x'.repeat(2 * 1024 * 1024) } }) });
    expect(res.status).toBe(413);
  });

  it('refuses a DSL that is not an object, and a string DSL that is not JSON', async () => {
    for (const bad of [42, 'not json', [1, 2]]) {
      const res = await api(h, 'POST', '/api/v1/agents', { body: { title: `t${String(bad)}`, dsl: bad } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ code: 101 });
    }
  });

  it('refuses a malformed Last-Event-ID with 400', async () => {
    const res = await api(h, 'GET', `/api/v1/runs/${runId}/events`, { headers: { 'last-event-id': 'yesterday' } });
    expect(res.status).toBe(400);
  });

  it('answers unknown routes with 404 JSON', async () => {
    const res = await api(h, 'GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'Not Found: /api/v1/nothing-here', data: null, error: 'Not Found' });
  });

  it('refuses a second turn while the session’s run is in progress with a clear conflict', async () => {
    // Longer than the next question's grace for a dropped follower (2 s): still running when it is answered.
    h.llm.whenPromptIncludes('Busy model.', { content: 'slow answer', delayMs: 4_000 });
    const busy = dsl({ begin: { name: 'Begin', downstream: ['LLM:b'] }, 'LLM:b': { name: 'LLM', params: { llm_id: 'x@OpenAI', sys_prompt: 'Busy model.' } } });
    const created = await api(h, 'POST', '/api/v1/agents', { body: { title: 'busy agent', dsl: busy } });
    const id = (created.body as { data: { id: string } }).data.id;
    const session = await api(h, 'POST', `/api/v1/agents/${id}/sessions`, { body: {} });
    const sid = (session.body as { data: { id: string } }).data.id;
    const first = api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: id, session_id: sid, query: 'one', stream: false } });
    await h.llm.waitForCalls(h.llm.calls.length + 1);
    const second = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: id, session_id: sid, query: 'two', stream: false } });
    expect(second.body).toMatchObject({ code: 102, message: expect.stringMatching(/already has a run in progress/) });
    expect(((await first).body as { code: number }).code).toBe(0);
    const third = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: id, session_id: sid, query: 'three', stream: false } });
    expect((third.body as { code: number }).code).toBe(0);
  });

  it('keeps a session’s turns: messages and the turn counter', async () => {
    const session = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions/${sessionId}`);
    const messages = (session.body as { data: { message: Array<{ role: string; content: string }> } }).data.message;
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'secret'],
      ['assistant', 'echo secret'],
    ]);
    await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, session_id: sessionId, query: 'again', stream: false } });
    const row = await h.store.sessions.get('tenant-a', agentId, sessionId);
    expect(row!.state.globals['sys.conversation_turns']).toBe(2);
    expect(row!.state.history.map(([role]) => role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});
