/**
 * An OpenAI stream outlives the API: the process serving `POST /v1/chat/completions` (API and
 * worker in one) is SIGKILLed while the model's answer streams; after a restart on the same data
 * folder, `GET /v1/chat/completions/{run id}/stream` with the last chunk's id sends the rest. The
 * worker died too, so the model call runs again (a `message_retry`); what the client already holds
 * is not sent twice: its chunks join to exactly the model's answer, no gap, no repeat.
 */
import { describe, expect, it } from 'vitest';
import { parseSse, streamSse, type SseMessage } from '../helpers/appHarness';
import { appProcessSuite } from '../helpers/appProcessSuite';
import { dsl } from '../helpers/canvasKit';

const app = appProcessSuite('openai-resume');
const ANSWER = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');

const deltaOf = (m: SseMessage): string => (m.json?.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content ?? '';

describe('an OpenAI stream across an API crash', () => {
  it('resumes after a SIGKILL from Last-Event-ID with no gap and no duplicate', async () => {
    const env = app.env();
    const { base, auth, llm } = app;
    llm.whenPromptIncludes('Slow answer.', { content: ANSWER, delayMs: 60 });
    const child = await app.start(env);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:slow'] },
      'LLM:slow': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Slow answer.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:slow@content}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'openai resume', dsl: canvas }) })
    ).json()) as {
      data: { id: string };
    };

    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: created.data.id, messages: [{ role: 'user', content: 'go' }], stream: true }),
    });
    const runId = res.headers.get('x-agent-canvas-run-id');
    expect(runId).toBeTruthy();
    // Read until the answer is well under way, then kill the process mid-stream.
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const before: SseMessage[] = [];
    while (!before.map(deltaOf).join('').includes('w5 ')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before the kill');
      buffer += decoder.decode(value, { stream: true });
      const cut = buffer.lastIndexOf('\n\n');
      if (cut < 0) continue;
      before.push(...parseSse(buffer.slice(0, cut + 2)));
      buffer = buffer.slice(cut + 2);
    }
    await child.kill();
    await reader.cancel().catch(() => undefined);
    const lastId = before.filter((m) => m.id).at(-1)!.id!;

    await app.start(env);
    const after = await streamSse(`${base}/v1/chat/completions/${runId}/stream`, { headers: { ...auth, 'last-event-id': lastId } }, () => false);
    expect(after.at(-1)!.data).toBe('[DONE]');
    const held = before
      .filter((m) => m.id)
      .map(deltaOf)
      .join('');
    const rest = after.map(deltaOf).join('');
    expect(held + rest).toBe(ANSWER);
    // The chunk id is the completion's throughout, before and after the crash.
    expect(new Set([...before, ...after].filter((m) => m.json).map((m) => m.json!.id)).size).toBe(1);
    expect(after.filter((m) => m.json && deltaOf(m) !== '').every((m) => /^\d+-\d+$/.test(m.id ?? ''))).toBe(true);
    const status = (await (await fetch(`${base}/api/v1/runs/${runId}`, { headers: auth })).json()) as { status: string };
    expect(status.status).toBe('finished');
  }, 240_000);
});
