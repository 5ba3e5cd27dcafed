/**
 * Authentication as current RAGFlow answers it (api/apps/__init__.py `login_required`, and the
 * `assert_auth_error` helper of its REST tests): a missing, empty, malformed or unknown key gets
 * HTTP 401 `{code: 401, message: "<Unauthorized '401: Unauthorized'>", data: null}` on every
 * RAGFlow route; the OpenAI-compatible routes answer OpenAI's 401 error; unknown routes RAGFlow's
 * 404 envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';
import { MINIMAL_DSL } from './agentKit';

let h: Harness;
let agentId: string;

const UNAUTHORIZED = { code: 401, message: "<Unauthorized '401: Unauthorized'>", data: null };

beforeAll(async () => {
  // RAGFlow's contract sends many bad keys from one address: the failed-key throttle (429 after
  // AUTH_FAILURE_LIMIT, tested in test/api/httpLimits.test.ts) is off here, as RAGFlow has none.
  h = await startHarness({ httpLimits: { authFailureLimit: 0 } });
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title: 'auth contract agent', dsl: MINIMAL_DSL } });
  agentId = (res.body as { data: { id: string } }).data.id;
});

afterAll(async () => {
  await h?.close();
});

/** RAGFlow routes, one request each, as its clients send them (JSON content type always). */
function ragflowRoutes(): Array<[string, string, unknown?]> {
  return [
    ['GET', '/api/v1/agents'],
    ['POST', '/api/v1/agents', { title: 'x', dsl: MINIMAL_DSL }],
    ['GET', `/api/v1/agents/${agentId}`],
    ['PUT', `/api/v1/agents/${agentId}`, { title: 'y' }],
    ['DELETE', `/api/v1/agents/${agentId}`],
    ['GET', '/api/v1/agents/prompts'],
    ['GET', '/api/v1/agents/templates'],
    ['GET', `/api/v1/agents/${agentId}/versions`],
    ['GET', `/api/v1/agents/${agentId}/sessions`],
    ['POST', `/api/v1/agents/${agentId}/sessions`, { name: 'x' }],
    ['DELETE', `/api/v1/agents/${agentId}/sessions`, { ids: null, delete_all: true }],
    ['POST', '/api/v1/agents/chat/completions', { agent_id: agentId, query: 'hi' }],
    ['POST', `/api/v1/agents/${agentId}/completions`, { query: 'hi' }],
    ['POST', `/api/v1/agents_openai/${agentId}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }],
    ['GET', `/api/v1/agents/${agentId}/webhook/logs?since_ts=0`],
    ['POST', '/api/v1/agents/test_db_connection', { db_type: 'mysql' }],
    ['POST', '/api/v1/agents/rerun', { id: 'flow-1' }],
    ['POST', '/api/v1/tasks/missing_task/cancel'],
    ['PATCH', '/api/v1/tasks/missing_task', { action: 'stop' }],
    ['GET', '/api/v1/datasets'],
    ['GET', '/api/v1/system/tokens'],
  ];
}

const badKeys: Array<[string, Record<string, string>]> = [
  ['missing', {}],
  ['empty', { authorization: '' }],
  ['bearer without a key', { authorization: 'Bearer' }],
  ['bearer with blanks only', { authorization: 'Bearer    ' }],
  ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ['unknown key', { authorization: 'Bearer invalid_key_123' }],
  ['unknown raw key (no scheme)', { authorization: 'invalid_key_123' }],
];

describe('RAGFlow REST contract: auth', () => {
  for (const [scenario, headers] of badKeys) {
    it(`answers every RAGFlow route with HTTP 401 {code: 401} for a ${scenario} key`, async () => {
      for (const [method, path, body] of ragflowRoutes()) {
        const res = await api(h, method, path, {
          key: null,
          headers: { 'content-type': 'application/json', ...headers },
          ...(body !== undefined ? { body } : method === 'GET' ? {} : { raw: '' }),
        });
        expect(res.status, `${scenario}: ${method} ${path}: ${res.text}`).toBe(401);
        expect(res.body, `${scenario}: ${method} ${path}`).toEqual(UNAUTHORIZED);
      }
      // Nothing happened: the agent is still there.
      expect((await api(h, 'GET', `/api/v1/agents/${agentId}`)).body).toMatchObject({ code: 0 });
    });
  }

  it('accepts the key with or without the Bearer scheme, as RAGFlow does', async () => {
    expect((await api(h, 'GET', '/api/v1/agents', { key: null, headers: { authorization: `Bearer ${h.key}` } })).body).toMatchObject({ code: 0 });
    expect((await api(h, 'GET', '/api/v1/agents', { key: null, headers: { authorization: `bearer ${h.key}` } })).body).toMatchObject({ code: 0 });
    expect((await api(h, 'GET', '/api/v1/agents', { key: null, headers: { authorization: h.key } })).body).toMatchObject({ code: 0 });
  });

  it('answers the OpenAI-compatible routes with OpenAI’s 401 error', async () => {
    for (const [method, path, body] of [
      ['POST', '/v1/chat/completions', { model: agentId, messages: [{ role: 'user', content: 'hi' }] }],
      ['GET', '/v1/models', undefined],
    ] as const) {
      for (const key of [null, 'invalid_key_123']) {
        const res = await api(h, method, path, { key, ...(body ? { body } : {}) });
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key', message: expect.any(String) } });
      }
    }
  });

  it('answers our own routes with 401 UNAUTHENTICATED', async () => {
    for (const key of [null, 'invalid_key_123']) {
      const res = await api(h, 'GET', '/api/v1/runs/some-run', { key });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
  });

  it('test_route_not_found_returns_json: an unknown route is RAGFlow’s 404 envelope, key or not', async () => {
    for (const key of [null, h.key]) {
      const res = await api(h, 'GET', '/api/v1/__missing_route__', { key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Not Found: /api/v1/__missing_route__', data: null, error: 'Not Found' });
    }
    const query = await api(h, 'GET', '/api/v1/__missing_route__?x=1', { key: null });
    expect((query.body as { message: string }).message).toBe('Not Found: /api/v1/__missing_route__');
  });
});
