/**
 * Bad input never crashes: a body too deep to walk, text PostgreSQL refuses (NUL, lone
 * surrogates) in the body, the path or the query, `__proto__` keys, wrong types on the completion
 * routes and canvases that could never run all get RAGFlow's code 101 (our routes: HTTP 400)
 * naming the field; concurrent creates with one title make one agent; /tasks/{id}/cancel says
 * whether it canceled anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
let agentId: string;
type Envelope = { code: number; message: string; data?: { errors?: Array<{ path: string; message: string }> } & Record<string, unknown> };

const echo = dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['echo {sys.query}'] } } });

beforeAll(async () => {
  h = await startHarness();
  agentId = ((await api(h, 'POST', '/api/v1/agents', { body: { title: `bad input ${Date.now()}`, dsl: echo } })).body as { data: { id: string } }).data.id;
});
afterAll(async () => h?.close());

const complete = async (body: Record<string, unknown>) =>
  (await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, stream: false, ...body } })).body as Envelope;

describe('request bodies', () => {
  it('refuses a body nested 10 000 levels deep by naming the limit', async () => {
    const raw = `{"agent_id": "${agentId}", "inputs": {"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const theirs = await api(h, 'POST', '/api/v1/agents/chat/completions', { raw });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ code: 101, message: 'The request body nests arrays/objects deeper than the limit of 64 levels' });
    const ours = await api(h, 'POST', '/api/v1/canvases/validate', { raw: `{"dsl": ${'['.repeat(10_000)}${']'.repeat(10_000)}}` });
    expect(ours.status).toBe(400);
  });

  it('refuses a DSL sent as a JSON string nested 10 000 levels deep', async () => {
    const text = JSON.stringify(echo).replace('"history":[]', `"history":${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    const res = (await api(h, 'POST', '/api/v1/agents', { body: { title: `deep ${Date.now()}`, dsl: text } })).body as Envelope;
    expect(res).toMatchObject({ code: 101, data: { errors: [{ path: '$.dsl', message: 'the DSL nests arrays/objects deeper than the limit of 64 levels' }] } });
  });

  it('names a NUL or a lone surrogate anywhere in the body, the path or the query', async () => {
    expect(await complete({ query: 'a\u0000b' })).toMatchObject({
      code: 101,
      data: { errors: [{ path: '$.body.query', message: 'contains a NUL character (\\u0000)' }] },
    });
    const surrogate = await api(h, 'POST', '/api/v1/agents', { raw: `{"title": "t\\ud800", "dsl": ${JSON.stringify(echo)}}` });
    expect(surrogate.body).toMatchObject({
      code: 101,
      data: { errors: [{ path: '$.body.title', message: 'contains a lone UTF-16 surrogate (invalid Unicode)' }] },
    });
    expect((await api(h, 'GET', '/api/v1/agents/a%00b')).body).toMatchObject({ code: 101, data: { errors: [{ path: '$.path.agent_id' }] } });
    expect((await api(h, 'GET', '/api/v1/agents?keywords=a%00b')).body).toMatchObject({ code: 101, data: { errors: [{ path: '$.query.keywords' }] } });
    expect((await api(h, 'GET', `/api/v1/runs/x%00`)).status).toBe(400);
  });

  it('keeps __proto__ and constructor as ordinary keys, and names __proto__ as a component id', async () => {
    const reply = await complete({ query: 'hi', inputs: JSON.parse('{"__proto__": {"value": 1}, "constructor": {"value": 2}}') });
    expect(reply.code).toBe(0);
    const raw = JSON.stringify({ title: `proto ${Date.now()}`, dsl: echo }).replaceAll('Message:m', '__proto__');
    const res = (await api(h, 'POST', '/api/v1/agents', { raw })).body as Envelope;
    expect(res.code).toBe(101);
    expect(res.data?.errors).toEqual([
      { path: '$.dsl.components.__proto__', message: '"__proto__" cannot be a component id (it is reserved in JavaScript objects); rename the component' },
    ]);
  });
});

describe('completion fields of the wrong type', () => {
  it.each([
    ['agent_id', 123, 'must be a string, not number'],
    ['session_id', 5, 'must be a string, not number'],
    ['files', 'abc', 'must be a list, not string'],
    ['query', {}, 'must be a string, not object'],
    ['user_id', true, 'must be a string, not boolean'],
  ])('answers code 101 naming %s', async (field, value, message) => {
    expect(await complete({ [field]: value })).toMatchObject({
      code: 101,
      message: `\`${field}\` ${message}`,
      data: { errors: [{ path: `$.body.${field}`, message }] },
    });
  });

  it('refuses an OpenAI message whose content is neither text nor text parts, and reads text parts', async () => {
    const bad = await api(h, 'POST', '/v1/chat/completions', { body: { model: agentId, messages: [{ role: 'user', content: { text: 'x' } }] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ path: '$.body.messages[0].content' }] });
    const parts = await api(h, 'POST', '/v1/chat/completions', {
      body: { model: agentId, messages: [{ role: 'user', content: [{ type: 'text', text: 'from parts' }] }] },
    });
    expect(JSON.stringify(parts.body)).toContain('echo from parts');
  });
});

describe('canvases that could never run', () => {
  const create = async (canvas: Record<string, unknown>) =>
    (await api(h, 'POST', '/api/v1/agents', { body: { title: `never ${Math.random()}`, dsl: canvas } })).body as Envelope;

  it('saves a component no path from begin reaches, as RAGFlow does, and names it in warnings', async () => {
    const res = await create(
      dsl({
        begin: { name: 'Begin', downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['hi'] } },
        'Message:lost': { name: 'Message', params: { content: ['x'] } },
      }),
    );
    expect(res).toMatchObject({
      code: 0,
      warnings: [{ path: '$.dsl.components["Message:lost"]', message: expect.stringContaining('is not reachable from "begin"') }],
    });
  });

  it('refuses {sys.nope} and an output the component does not declare', async () => {
    const res = await create(
      dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['{sys.nope} {begin@nothing}'] } } }),
    );
    expect(res.code).toBe(101);
    expect(res.data?.errors?.map((e) => e.message)).toEqual([
      expect.stringMatching(/^reference \{sys\.nope\} names no system variable/),
      'reference {begin@nothing} reads output "nothing", which component "begin" does not declare (it has: no outputs)',
    ]);
  });
});

describe('agent titles', () => {
  it('creates one agent out of ten concurrent creates with the same title; the others hear RAGFlow’s message', async () => {
    const title = `Same Title ${Date.now()}`;
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api(h, 'POST', '/api/v1/agents', { body: { title: i % 2 ? title : title.toUpperCase(), dsl: echo } })),
    );
    const bodies = replies.map((r) => r.body as Envelope);
    expect(bodies.filter((b) => b.code === 0)).toHaveLength(1);
    for (const b of bodies.filter((x) => x.code !== 0))
      expect(b).toMatchObject({ code: 102, message: expect.stringMatching(/^Same Title \d+ already exists\.$/i) });
    const listed = (await api(h, 'GET', `/api/v1/agents?keywords=${encodeURIComponent(title)}`)).body as { data: { total: number } };
    expect(listed.data.total).toBe(1);
  });
});

describe('/tasks/{id}/cancel', () => {
  it('says nothing was canceled for an unknown id and another tenant’s run, with RAGFlow’s envelope', async () => {
    const reply = await complete({ query: 'x' });
    const taskId = String((reply.data as { task_id: string }).task_id);
    const unknown = await api(h, 'POST', '/api/v1/tasks/no-such-task/cancel');
    expect(unknown.body).toEqual({ code: 0, data: true, message: 'No task no-such-task was found: nothing was canceled.' });
    const foreign = await api(h, 'POST', `/api/v1/tasks/${taskId}/cancel`, { key: h.otherKey });
    expect(foreign.body).toEqual({ code: 0, data: true, message: `No task ${taskId} was found: nothing was canceled.` });
    const ended = await api(h, 'POST', `/api/v1/tasks/${taskId}/cancel`);
    expect(ended.body).toEqual({ code: 0, data: true, message: `Task ${taskId} had already ended (finished): nothing was canceled.` });
  });
});
