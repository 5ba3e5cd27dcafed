/**
 * The OpenAI-compatible routes driven by the `openai` npm SDK itself: a canvas is a model.
 * Stream and non-stream chat completions, `models.list()` / `models.retrieve()`, and the SDK's
 * typed errors: AuthenticationError (401) for a bad key, NotFoundError (404) for a model that is
 * no canvas of the caller, BadRequestError (400) for a malformed request. Also RAGFlow's
 * documented OpenAI-style agent route, `POST /api/v1/agents_openai/{agent_id}/chat/completions`.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../../helpers/appHarness';
import { MINIMAL_DSL } from './agentKit';

let h: Harness;
let agentId: string;
let client: OpenAI;

beforeAll(async () => {
  h = await startHarness();
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title: 'openai contract echo', dsl: MINIMAL_DSL } });
  agentId = (res.body as { data: { id: string } }).data.id;
  client = new OpenAI({ apiKey: h.key, baseURL: `${h.base}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await h?.close();
});

describe('OpenAI SDK against /v1', () => {
  it('non-stream: one chat.completion with the canvas’s answer', async () => {
    const reply = await client.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'hello there' }] });
    expect(reply.object).toBe('chat.completion');
    expect(reply.model).toBe(agentId);
    expect(reply.choices[0]!.message.content).toBe('hello there');
    expect(reply.choices[0]!.finish_reason).toBe('stop');
  });

  it('stream: chunks that join to the answer, ending with finish_reason stop', async () => {
    const stream = await client.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'streamed hello' }], stream: true });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('streamed hello');
    expect(finish).toBe('stop');
  });

  it('models.list(): the caller’s canvases as models, and only theirs', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    expect(models.map((m) => m.id)).toContain(agentId);
    expect(models.find((m) => m.id === agentId)).toMatchObject({ object: 'model', owned_by: 'tenant-a', created: expect.any(Number) });
    const other = new OpenAI({ apiKey: h.otherKey, baseURL: `${h.base}/v1`, maxRetries: 0 });
    const theirs = [];
    for await (const m of other.models.list()) theirs.push(m.id);
    expect(theirs).not.toContain(agentId);
    expect((await client.models.retrieve(agentId)).id).toBe(agentId);
  });

  it('a bad key raises AuthenticationError (401)', async () => {
    const bad = new OpenAI({ apiKey: 'invalid_key_123', baseURL: `${h.base}/v1`, maxRetries: 0 });
    const err = await bad.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    expect(await bad.models.list().catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('an unknown model (or another tenant’s canvas) raises NotFoundError (404, model_not_found)', async () => {
    for (const [c, model] of [
      [client, 'no-such-canvas'],
      [new OpenAI({ apiKey: h.otherKey, baseURL: `${h.base}/v1`, maxRetries: 0 }), agentId],
    ] as const) {
      const err = await c.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
      expect((err as Error).message).toContain(model);
      const streamed = await c.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }).catch((e: unknown) => e);
      expect(streamed).toBeInstanceOf(OpenAI.NotFoundError);
      expect(await c.models.retrieve(model).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    }
  });

  it('a malformed request raises BadRequestError (400) naming the field', async () => {
    const err = await client.chat.completions.create({ model: agentId, messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages');
  });
});

describe('RAGFlow’s OpenAI-style agent route: /api/v1/agents_openai/{agent_id}/chat/completions', () => {
  it('answers non-stream and stream as /agents/chat/completions with "openai-compatible": true', async () => {
    const nonstream = await api(h, 'POST', `/api/v1/agents_openai/${agentId}/chat/completions`, {
      body: { model: 'model', messages: [{ role: 'user', content: 'hello' }], stream: false },
    });
    expect(nonstream.status).toBe(200);
    expect(nonstream.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'hello' } }] });

    const stream = await api(h, 'POST', `/api/v1/agents_openai/${agentId}/chat/completions`, {
      body: { model: 'model', messages: [{ role: 'user', content: 'hello' }], stream: true },
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const chunks = parseSse(stream.text);
    expect(chunks.at(-1)!.data).toBe('[DONE]');
    expect(
      chunks
        .filter((c) => c.json)
        .map((c) => (c.json!.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content ?? '')
        .join(''),
    ).toBe('hello');
  });

  it('works with the OpenAI SDK pointed at it', async () => {
    const ragflowStyle = new OpenAI({ apiKey: h.key, baseURL: `${h.base}/api/v1/agents_openai/${agentId}`, maxRetries: 0 });
    const reply = await ragflowStyle.chat.completions.create({ model: 'model', messages: [{ role: 'user', content: 'via agents_openai' }] });
    expect(reply.choices[0]!.message.content).toBe('via agents_openai');
  });

  it('keeps RAGFlow’s envelope for its errors: no messages is code 102, an unknown agent code 103', async () => {
    const empty = await api(h, 'POST', `/api/v1/agents_openai/${agentId}/chat/completions`, { body: { model: 'model', messages: [] } });
    expect(empty.body).toMatchObject({ code: 102, message: 'You must provide at least one message.' });
    const unknown = await api(h, 'POST', '/api/v1/agents_openai/no-such-agent/chat/completions', {
      body: { model: 'model', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(unknown.body).toMatchObject({ code: 103 });
  });
});
