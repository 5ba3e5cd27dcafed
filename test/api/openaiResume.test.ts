/**
 * Resumable OpenAI streams: `POST /v1/chat/completions` with `stream: true` names its run in
 * `X-Agent-Canvas-Run-Id` and gives every chunk its event's `id:`; `GET
 * /v1/chat/completions/{run id}/stream` with `Last-Event-ID` sends the rest, as chunks the official
 * `openai` client parses, for the caller's own runs only. The crash case (the API SIGKILLed
 * mid-stream) is test/durability/openaiResume.test.ts.
 */
import OpenAI from 'openai';
import { Stream } from 'openai/streaming';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, streamSse, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
let agentId: string;
const ANSWER = Array.from({ length: 12 }, (_, i) => `part${i}`).join(' ');

beforeAll(async () => {
  h = await startHarness();
  h.llm.whenPromptIncludes('Resumable answer.', { content: ANSWER, delayMs: 20 });
  const canvas = dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Resumable answer.' }, downstream: ['Message:out'] },
    'Message:out': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title: `openai resume ${Date.now()}`, dsl: canvas } });
  agentId = (res.body as { data: { id: string } }).data.id;
});

afterAll(async () => {
  await h?.close();
});

const contentOf = (chunks: Array<{ json: Record<string, unknown> | null }>): string =>
  chunks.map((m) => (m.json?.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content ?? '').join('');

async function startStream(query: string): Promise<{ runId: string; messages: ReturnType<typeof parseSse> }> {
  const res = await fetch(`${h.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: agentId, messages: [{ role: 'user', content: query }], stream: true }),
  });
  return { runId: res.headers.get('x-agent-canvas-run-id') ?? '', messages: parseSse(await res.text()) };
}

describe('a streamed OpenAI completion', () => {
  it('names its run in X-Agent-Canvas-Run-Id, gives each chunk its event id and one chunk id throughout', async () => {
    const client = new OpenAI({ apiKey: h.key, baseURL: `${h.base}/v1`, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: 'one' }], stream: true })
      .withResponse();
    const runId = response.headers.get('x-agent-canvas-run-id');
    expect(runId).toMatch(/\S+/);
    const ids = new Set<string>();
    let text = '';
    for await (const chunk of stream) {
      ids.add(chunk.id);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe(ANSWER);
    expect(ids.size).toBe(1);

    const raw = await streamSse(`${h.base}/v1/chat/completions/${runId}/stream`, { headers: { authorization: `Bearer ${h.key}` } }, () => false);
    const content = raw.filter(
      (m) => m.json && (m.json.choices as unknown[]).length > 0 && (m.json.choices as Array<{ finish_reason: string | null }>)[0]!.finish_reason === null,
    );
    expect(content.length).toBeGreaterThan(1);
    for (const m of content) expect(m.id).toMatch(/^\d+-\d+$/);
    expect(raw.at(-1)!.data).toBe('[DONE]');
    expect(contentOf(raw)).toBe(ANSWER);
    expect(new Set(raw.filter((m) => m.json).map((m) => m.json!.id))).toEqual(ids);
  }, 120_000);

  it('names its run in X-Agent-Canvas-Run-Id when not streamed too', async () => {
    const client = new OpenAI({ apiKey: h.key, baseURL: `${h.base}/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'whole' }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe(ANSWER);
    const runId = response.headers.get('x-agent-canvas-run-id')!;
    const run = await api(h, 'GET', `/api/v1/runs/${runId}`);
    expect((run.body as { status: string }).status).toBe('finished');
  }, 120_000);

  it('resumes after Last-Event-ID with the rest only, as chunks the openai client parses', async () => {
    const { runId, messages } = await startStream('two');
    const withIds = messages.filter((m) => m.id);
    const cut = withIds[Math.floor(withIds.length / 2)]!;
    const before = contentOf(messages.slice(0, messages.indexOf(cut) + 1));
    const res = await fetch(`${h.base}/v1/chat/completions/${runId}/stream`, { headers: { authorization: `Bearer ${h.key}`, 'last-event-id': cut.id! } });
    expect(res.headers.get('x-agent-canvas-run-id')).toBe(runId);
    let rest = '';
    let finish: string | null = null;
    for await (const chunk of Stream.fromSSEResponse<ChatCompletionChunk>(res, new AbortController())) {
      rest += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(before.length).toBeGreaterThan(0);
    expect(before + rest).toBe(ANSWER);
    expect(finish).toBe('stop');
  }, 120_000);

  it('is not found for another tenant, and a bad Last-Event-ID names the header', async () => {
    const { runId } = await startStream('three');
    const theirs = await fetch(`${h.base}/v1/chat/completions/${runId}/stream`, { headers: { authorization: `Bearer ${h.otherKey}` } });
    expect(theirs.status).toBe(404);
    expect(((await theirs.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const bad = await fetch(`${h.base}/v1/chat/completions/${runId}/stream`, { headers: { authorization: `Bearer ${h.key}`, 'last-event-id': 'soon' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('Last-Event-ID');
  }, 120_000);
});
