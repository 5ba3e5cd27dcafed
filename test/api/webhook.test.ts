/**
 * RAGFlow's webhook trigger over real HTTP: a canvas whose Begin is in Webhook mode is run by a
 * call without an API key, guarded by the Begin's own security, with the request cut to its
 * schema; answers at once ("Immediately") or with the run's message. Refusals are HTTP 400.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const TOKEN = { auth_type: 'token', token: { token_header: 'X-Token', token_value: 's3cret' } };
const ORDER_SCHEMA = { body: { properties: { order_id: { type: 'number' }, note: { type: 'string' } }, required: ['order_id'] } };

let seq = 0;
/** Creates a Webhook-mode agent Begin → LLM (system prompt `mark`, user prompt from the body) → Message. */
async function webhookAgent(mark: string, begin: Record<string, unknown>, message: Record<string, unknown> = {}): Promise<string> {
  const canvas = dsl({
    begin: {
      name: 'Begin',
      params: { mode: 'Webhook', methods: ['POST'], security: TOKEN, schema: ORDER_SCHEMA, execution_mode: 'Deferred', ...begin },
      downstream: ['LLM:a'],
    },
    'LLM:a': {
      name: 'LLM',
      params: { llm_id: 'm@OpenAI', sys_prompt: mark, prompts: [{ role: 'user', content: 'Order {begin@body.order_id} ({begin@body.note})' }] },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['Reply: {LLM:a@content}'], ...message } },
  });
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title: `webhook ${mark} ${++seq}`, dsl: canvas } });
  const payload = res.body as { code: number; data: { id: string } };
  expect(payload.code, res.text).toBe(0);
  return payload.data.id;
}

const hook = (id: string, opts: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string>; query?: string } = {}) =>
  api(h, opts.method ?? 'POST', `/api/v1/agents/${id}/webhook${opts.query ?? ''}`, {
    key: null,
    headers: { 'X-Token': 's3cret', ...opts.headers },
    ...(opts.raw !== undefined ? { raw: opts.raw } : opts.body !== undefined ? { body: opts.body } : {}),
  });

const refused = (message: string) => ({ code: 400, message });

/** `Bearer <HS256 JWT>` of these claims. */
const sign = (claims: object, key = 'k') => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `Bearer ${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
};
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe('webhook trigger', () => {
  it('runs the canvas with the request body and answers with the run’s message', async () => {
    h.llm.whenPromptIncludes('MARK-wh-sync', { content: 'Order confirmed.' });
    const id = await webhookAgent('MARK-wh-sync', {});
    const res = await hook(id, { body: { order_id: 42, extra: 'dropped' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ message: 'Reply: Order confirmed.', success: true, code: 200 });
    const call = h.llm.calls.find((c) => JSON.stringify(c.body.messages).includes('MARK-wh-sync'))!;
    // The declared field arrives typed; an optional one missing gets its type's default.
    expect(JSON.stringify(call.body.messages)).toContain('Order 42 ()');
  });

  it('casts strings to the declared type and answers with the Message’s status', async () => {
    h.llm.whenPromptIncludes('MARK-wh-cast', { content: 'Accepted.' });
    const id = await webhookAgent('MARK-wh-cast', { content_types: 'application/x-www-form-urlencoded' }, { status: '202' });
    const res = await hook(id, { raw: 'order_id=7&note=rush', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ message: 'Reply: Accepted.', success: true, code: 202 });
    const call = h.llm.calls.find((c) => JSON.stringify(c.body.messages).includes('MARK-wh-cast'))!;
    expect(JSON.stringify(call.body.messages)).toContain('Order 7 (rush)');
  });

  it('answers at once in Immediately mode and the run still finishes', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.llm.whenPromptIncludes('MARK-wh-now', { until: held, then: { content: 'done later' } });
    const id = await webhookAgent('MARK-wh-now', { execution_mode: 'Immediately', response: { status: 201, body_template: '{"accepted": true}' } });
    const before = h.llm.calls.length;
    const res = await hook(id, { body: { order_id: 9 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ accepted: true });
    const runId = res.headers.get('x-task-id')!;
    await h.llm.waitForCalls(before + 1);
    const call = h.llm.calls.find((c) => JSON.stringify(c.body.messages).includes('MARK-wh-now'))!;
    expect(JSON.stringify(call.body.messages)).toContain('Order 9 ()');
    release();
    const deadline = Date.now() + 30_000;
    let status = '';
    while (Date.now() < deadline && status !== 'finished') {
      status = String(((await api(h, 'GET', `/api/v1/runs/${runId}`)).body as { status?: string }).status);
      if (status !== 'finished') await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe('finished');
  });

  it('answers text body templates as text', async () => {
    const id = await webhookAgent('MARK-wh-text', { execution_mode: 'Immediately', response: { status: 200, body_template: 'thanks' } });
    h.llm.whenPromptIncludes('MARK-wh-text', { content: 'ok' });
    const res = await hook(id, { body: { order_id: 1 } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toBe('thanks');
  });

  it('accepts any method when `methods` is empty and casts query fields; the route is documented', async () => {
    h.llm.whenPromptIncludes('MARK-wh-any', { content: 'ok' });
    const schema = {
      query: { properties: { order_id: { type: 'number' }, urgent: { type: 'boolean' }, tags: { type: 'array<string>' } }, required: ['order_id'] },
    };
    const canvas = dsl({
      begin: { name: 'Begin', params: { mode: 'webhook', methods: [], security: TOKEN, schema, execution_mode: 'Deferred' }, downstream: ['LLM:a'] },
      'LLM:a': {
        name: 'LLM',
        params: {
          llm_id: 'm@OpenAI',
          sys_prompt: 'MARK-wh-any',
          prompts: [{ role: 'user', content: 'Order {begin@query.order_id} urgent={begin@query.urgent} tags={begin@query.tags}' }],
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
    });
    const id = ((await api(h, 'POST', '/api/v1/agents', { body: { title: `webhook any ${++seq}`, dsl: canvas } })).body as { data: { id: string } }).data.id;
    const res = await hook(id, { method: 'GET', query: '?order_id=12&urgent=true&tags=%5B%22a%22%5D' });
    expect(res.body).toEqual({ message: 'ok', success: true, code: 200 });
    const call = h.llm.calls.find((c) => JSON.stringify(c.body.messages).includes('MARK-wh-any'))!;
    expect(JSON.stringify(call.body.messages)).toContain('Order 12 urgent=true tags=');
    expect((await hook(id, { method: 'HEAD', query: '?order_id=13' })).status).toBe(200);
    expect((await hook(id, { method: 'DELETE', query: '?urgent=maybe&order_id=1' })).body).toEqual(
      refused("query.urgent auto-cast failed: Cannot convert 'maybe' to boolean"),
    );

    const doc = (await api(h, 'GET', '/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/api/v1/agents/{agent_id}/webhook'] ?? {})).toEqual(expect.arrayContaining(['post', 'get']));
  });

  it('refuses bad calls with RAGFlow’s messages and HTTP 400', async () => {
    const id = await webhookAgent('MARK-wh-bad', { content_types: 'application/json' });
    const cases: Array<[Parameters<typeof hook>[1], string]> = [
      [{ body: { order_id: 1 }, headers: { 'X-Token': 'wrong' } }, 'Invalid token authentication'],
      [{ body: { note: 'no id' } }, 'body missing required field: order_id'],
      [{ body: { order_id: [1] } }, 'body.order_id type mismatch: expected number, got list'],
      [{ body: { order_id: 'forty' } }, "body.order_id auto-cast failed: Cannot convert 'forty' to number"],
      [{ method: 'GET' }, "HTTP method 'GET' not allowed for this webhook."],
      [{ raw: 'order_id=1', headers: { 'content-type': 'text/plain' } }, "Invalid Content-Type: expect 'application/json', got 'text/plain'"],
    ];
    for (const [opts, message] of cases) {
      const res = await hook(id, opts);
      expect(res.status, message).toBe(400);
      expect(res.body).toEqual(refused(message));
    }
    expect((await hook('no-such-agent', { body: { order_id: 1 } })).body).toEqual(refused('Canvas not found.'));
  });

  it('refuses a canvas that is not in Webhook mode, and anonymous calls without allow_anonymous', async () => {
    const plain = dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['hi'] } } });
    const created = (await api(h, 'POST', '/api/v1/agents', { body: { title: `plain ${++seq}`, dsl: plain } })).body as { data: { id: string } };
    const res = await hook(created.data.id, { body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused('Webhook not configured for this agent.'));

    const anon = await webhookAgent('MARK-wh-anon', { security: { auth_type: 'none' } });
    expect((await hook(anon, { body: { order_id: 1 } })).body).toEqual(refused('Anonymous webhook access requires allow_anonymous to be true'));
    const none = await webhookAgent('MARK-wh-nosec', { security: {} });
    expect(((await hook(none, { body: { order_id: 1 } })).body as { message: string }).message).toContain('Webhook security is required');
  });

  it('limits the rate per agent (token bucket)', async () => {
    h.llm.whenPromptIncludes('MARK-wh-rate', { content: 'ok' });
    const id = await webhookAgent('MARK-wh-rate', {
      security: { ...TOKEN, rate_limit: { limit: 2, per: 'minute' } },
      execution_mode: 'Immediately',
      response: { status: 200 },
    });
    expect((await hook(id, { body: { order_id: 1 } })).status).toBe(200);
    expect((await hook(id, { body: { order_id: 2 } })).status).toBe(200);
    const third = await hook(id, { body: { order_id: 3 } });
    expect(third.status).toBe(400);
    expect(third.body).toEqual(refused('Too many requests (rate limit exceeded)'));
  });

  it('checks Basic, JWT, IP allow-list and body size', async () => {
    h.llm.whenPromptIncludes('MARK-wh-sec', { content: 'ok' });
    const now = { execution_mode: 'Immediately', response: { status: 204 } };
    const basic = await webhookAgent('MARK-wh-sec', { ...now, security: { auth_type: 'basic', basic_auth: { username: 'u', password: 'p' } } });
    const basicAuth = (user: string, pass: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });
    expect((await hook(basic, { body: { order_id: 1 }, headers: basicAuth('u', 'p') })).status).toBe(204);
    expect((await hook(basic, { body: { order_id: 1 }, headers: basicAuth('u', 'x') })).body).toEqual(refused('Invalid Basic Auth credentials'));

    const jwt = await webhookAgent('MARK-wh-sec', { ...now, security: { auth_type: 'jwt', jwt: { secret: 'k', required_claims: ['role'] } } });
    expect((await hook(jwt, { body: { order_id: 1 }, headers: { authorization: sign({ role: 'ops', exp: inAnHour() }) } })).status).toBe(204);
    expect((await hook(jwt, { body: { order_id: 1 }, headers: { authorization: sign({ role: 'ops', exp: inAnHour() }, 'other') } })).body).toEqual(
      refused('Invalid JWT: Signature verification failed'),
    );
    expect((await hook(jwt, { body: { order_id: 1 }, headers: { authorization: sign({ role: 'ops', exp: 1 }) } })).body).toEqual(
      refused('Invalid JWT: Signature has expired'),
    );
    expect((await hook(jwt, { body: { order_id: 1 }, headers: { authorization: sign({ exp: inAnHour() }) } })).body).toEqual(
      refused('Missing JWT claim: role'),
    );

    const walled = await webhookAgent('MARK-wh-sec', { ...now, security: { ...TOKEN, ip_whitelist: ['10.0.0.0/8'] } });
    expect((await hook(walled, { body: { order_id: 1 } })).body).toEqual(refused('IP 127.0.0.1 is not allowed by whitelist'));
    const local = await webhookAgent('MARK-wh-sec', { ...now, security: { ...TOKEN, ip_whitelist: ['127.0.0.0/8'] } });
    expect((await hook(local, { body: { order_id: 1 } })).status).toBe(204);

    const small = await webhookAgent('MARK-wh-sec', { ...now, security: { ...TOKEN, max_body_size: '1kb' } });
    const big = await hook(small, { body: { order_id: 1, note: 'x'.repeat(2000) } });
    expect(big.status).toBe(400);
    expect((big.body as { message: string }).message).toMatch(/^Request body too large: \d+ > 1024$/);
  });

  it('test route: the owner’s API key is required and another tenant is refused', async () => {
    h.llm.whenPromptIncludes('MARK-wh-test', { content: 'tested' });
    const id = await webhookAgent('MARK-wh-test', {});
    const res = await api(h, 'POST', `/api/v1/agents/${id}/webhook/test`, { body: { order_id: 5 }, headers: { 'X-Token': 's3cret' } });
    expect(res.body).toEqual({ message: 'Reply: tested', success: true, code: 200 });
    const foreign = await api(h, 'POST', `/api/v1/agents/${id}/webhook/test`, { key: h.otherKey, body: { order_id: 5 }, headers: { 'X-Token': 's3cret' } });
    expect(foreign.body).toEqual({ code: 103, data: false, message: 'Only the owner of the agent is authorized for this operation.' });
    expect((await api(h, 'POST', `/api/v1/agents/${id}/webhook/test`, { key: null, body: { order_id: 5 } })).status).toBe(401);
  });
});

describe('webhook authentication hardening', () => {
  const now = { execution_mode: 'Immediately', response: { status: 204 } };

  it('spends the rate limit only on authenticated calls: wrong tokens do not lock the caller out', async () => {
    h.llm.whenPromptIncludes('MARK-wh-ratefirst', { content: 'ok' });
    const id = await webhookAgent('MARK-wh-ratefirst', { ...now, security: { ...TOKEN, rate_limit: { limit: 2, per: 'minute' } } });
    for (let i = 0; i < 8; i++)
      expect((await hook(id, { body: { order_id: i }, headers: { 'X-Token': 'guess' } })).body).toEqual(refused('Invalid token authentication'));
    expect((await hook(id, { body: { order_id: 1 } })).status).toBe(204);
    expect((await hook(id, { body: { order_id: 2 } })).status).toBe(204);
    expect((await hook(id, { body: { order_id: 3 } })).body).toEqual(refused('Too many requests (rate limit exceeded)'));
  });

  it('refuses a JWT with junk characters in any of its three parts', async () => {
    h.llm.whenPromptIncludes('MARK-wh-junk', { content: 'ok' });
    const id = await webhookAgent('MARK-wh-junk', { ...now, security: { auth_type: 'jwt', jwt: { secret: 'k' } } });
    const good = sign({ exp: inAnHour() });
    expect((await hook(id, { body: { order_id: 1 }, headers: { authorization: good } })).status).toBe(204);
    const [head, payload, signature] = good.slice('Bearer '.length).split('.') as [string, string, string];
    const cases: Array<[string, string]> = [
      [`${head}.${payload}.${signature.slice(0, 10)}*!${signature.slice(10)}`, 'The signature is not valid base64url'],
      [`${head}.${payload}.${signature}=`, 'The signature is not valid base64url'],
      // A different last character that is still canonical base64url (a 32-byte signature's last
      // character carries 4 bits; 'A' and 'E' have the 2 unused bits clear): a wrong signature, not a malformed one.
      [`${head}.${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'E' : 'A'}`, 'Signature verification failed'],
      [`${head}.${payload.slice(0, 4)}~${payload.slice(4)}.${signature}`, 'The payload is not valid base64url'],
      [`${head}$.${payload}.${signature}`, 'The header is not valid base64url'],
    ];
    for (const [token, message] of cases)
      expect((await hook(id, { body: { order_id: 1 }, headers: { authorization: `Bearer ${token}` } })).body, token).toEqual(
        refused(`Invalid JWT: ${message}`),
      );
  });

  it('requires exp unless the webhook’s jwt.require_exp is false', async () => {
    h.llm.whenPromptIncludes('MARK-wh-exp', { content: 'ok' });
    const strict = await webhookAgent('MARK-wh-exp', { ...now, security: { auth_type: 'jwt', jwt: { secret: 'k' } } });
    expect((await hook(strict, { body: { order_id: 1 }, headers: { authorization: sign({ sub: 'a' }) } })).body).toEqual(
      refused('Invalid JWT: Token is missing the "exp" claim'),
    );
    const lax = await webhookAgent('MARK-wh-exp', { ...now, security: { auth_type: 'jwt', jwt: { secret: 'k', require_exp: false } } });
    expect((await hook(lax, { body: { order_id: 1 }, headers: { authorization: sign({ sub: 'a' }) } })).status).toBe(204);
  });
});
