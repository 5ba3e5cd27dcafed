/**
 * Serves the offline demo model as an OpenAI-compatible endpoint (`/demo-llm/v1`), so `npm start`
 * without any model key goes through exactly the same code path as a real provider.
 */
import type { FastifyInstance } from 'fastify';
import { demoAnswer } from '../../src/io/llm/demoModel';
import { chunk, completion, roughTokens, sse, tokenize } from '../../src/io/llm/openaiWire';

export const DEMO_MODEL_PATH = '/demo-llm/v1';

export async function demoModelPlugin(app: FastifyInstance): Promise<void> {
  app.post(`${DEMO_MODEL_PATH}/chat/completions`, { config: { auth: false }, schema: { hide: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as { model?: string; messages?: Array<{ role: string; content: unknown }>; stream?: boolean };
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const answer = demoAnswer(messages);
    const id = `demo-${Date.now()}`;
    const model = body.model || 'demo';
    const created = Math.floor(Date.now() / 1000);
    const prompt = messages.reduce((n, m) => n + roughTokens(String(m.content ?? '')), 0);
    const usage = { prompt_tokens: prompt, completion_tokens: roughTokens(answer), total_tokens: prompt + roughTokens(answer) };
    if (!body.stream) return completion(id, model, created, answer, usage);
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const piece of tokenize(answer, 2)) {
      if (reply.raw.destroyed) return reply;
      reply.raw.write(sse(chunk(id, model, created, { content: piece })));
      await new Promise((r) => setTimeout(r, 15));
    }
    reply.raw.write(sse(chunk(id, model, created, {}, 'stop')));
    reply.raw.write(sse(chunk(id, model, created, {}, null, usage)));
    reply.raw.end(sse('[DONE]'));
    return reply;
  });
}
