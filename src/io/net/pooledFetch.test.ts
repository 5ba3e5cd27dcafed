/**
 * pooledFetch against real local HTTP servers, through the `openai` client where a model call is
 * what is at stake: streamed answers arrive piece by piece on a kept-alive connection, a cut or
 * silent connection fails the call instead of ending it early, an abort reports its reason, and
 * compressed answers, redirects, error statuses and form bodies behave as with the platform's fetch.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createPooledFetch, pooledFetch } from './pooledFetch';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server answering with `handler`; `connections` counts the TCP connections it accepted. */
async function serve(handler: Handler): Promise<{ url: string; connections: () => number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', (s) => sockets.push(s));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connections: () => sockets.length, sockets };
}

const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
const completion = (content: string) => ({
  id: 'c1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const sseHead = { 'content-type': 'text/event-stream' };
const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };

function client(url: string, fetch = pooledFetch): OpenAI {
  return new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0, fetch });
}

async function streamed(c: OpenAI, signal?: AbortSignal): Promise<string> {
  let text = '';
  const stream = await c.chat.completions.create({ ...ask, stream: true }, signal ? { signal } : {});
  for await (const part of stream) text += part.choices[0]?.delta.content ?? '';
  return text;
}

describe('pooledFetch', () => {
  it('streams a model answer piece by piece, and reuses one connection for the next calls', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const server = await serve((_req, res) => {
      res.writeHead(200, sseHead);
      res.write(chunk('first '));
      void held.then(() => res.end(chunk('second', 'stop') + 'data: [DONE]\n\n'));
    });
    const c = client(server.url);
    const stream = await c.chat.completions.create({ ...ask, stream: true });
    const pieces = stream[Symbol.asyncIterator]();
    // The first piece is read while the server still holds the rest back.
    expect((await pieces.next()).value?.choices[0]?.delta.content).toBe('first ');
    release();
    expect((await pieces.next()).value?.choices[0]?.delta.content).toBe('second');
    expect((await pieces.next()).done).toBe(true);
    expect(await streamed(c)).toBe('first second');
    expect(await streamed(c)).toBe('first second');
    expect(server.connections()).toBe(1);
  });

  it('fails a streamed answer whose connection is cut, rather than ending it early', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, sseHead);
      res.write(chunk('partial '), () => setTimeout(() => res.socket?.destroy(), 20));
    });
    await expect(streamed(client(server.url))).rejects.toThrow();
  });

  it('ends the exchange with the abort signal’s reason, before the answer and during its body', async () => {
    const server = await serve((req, res) => {
      if (req.url?.includes('never')) return; // never answers
      res.writeHead(200, sseHead);
      res.write(chunk('partial '));
    });
    const reason = new Error('canceled by the workflow');
    const during = new AbortController();
    const res = await pooledFetch(`${server.url}/chat/completions`, { method: 'POST', body: '{}', signal: during.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('partial');
    during.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);

    const before = new AbortController();
    const pending = pooledFetch(`${server.url}/never`, { method: 'POST', body: '{}', signal: before.signal });
    setTimeout(() => before.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it('fails a call whose connection stays silent past the idle timeout', async () => {
    const server = await serve(() => {}); // accepts and never answers
    const started = Date.now();
    const silent = createPooledFetch({ idleTimeoutMs: 150 });
    await expect(silent(`${server.url}/chat/completions`, { method: 'POST', body: '{}' })).rejects.toThrow(/no data from 127\.0\.0\.1:\d+ for 0\.15 s/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('decodes gzip and brotli answers, streamed ones as they arrive', async () => {
    const server = await serve((req, res) => {
      if (req.url?.includes('gzip')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(zlib.gzipSync(JSON.stringify(completion('unzipped'))));
      }
      res.writeHead(200, { ...sseHead, 'content-encoding': 'br' });
      const br = zlib.createBrotliCompress();
      br.pipe(res);
      br.write(chunk('compressed '));
      br.flush(zlib.constants.BROTLI_OPERATION_FLUSH, () => setTimeout(() => br.end(chunk('stream', 'stop') + 'data: [DONE]\n\n'), 20));
    });
    const viaGzip = new OpenAI({ baseURL: `${server.url}/gzip`, apiKey: 'k', maxRetries: 0, fetch: pooledFetch });
    expect((await viaGzip.chat.completions.create(ask)).choices[0]?.message.content).toBe('unzipped');
    expect(await streamed(client(server.url))).toBe('compressed stream');
  });

  it('follows a redirect, and reports an error status as the model’s answer', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/v1/chat/completions') {
        res.writeHead(307, { location: '/v2/chat/completions' });
        return res.end();
      }
      if (req.url === '/v2/chat/completions') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion('moved')));
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'overloaded' } }));
    });
    expect((await client(server.url).chat.completions.create(ask)).choices[0]?.message.content).toBe('moved');
    const failed = client(server.url.replace('/v1', '/v3')).chat.completions.create(ask);
    await expect(failed).rejects.toBeInstanceOf(OpenAI.APIError);
    await expect(failed).rejects.toMatchObject({ status: 503 });
  });

  it('sends the request again once when the pooled connection it reused was closed by the server', async () => {
    let requests = 0;
    const server = await serve((req, res) => {
      requests++;
      // The second request arrives on the kept connection: the server drops it unanswered, as
      // a server whose idle timeout fired at that moment would.
      if (requests === 2) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(`answer ${requests}`)));
    });
    const c = client(server.url);
    expect((await c.chat.completions.create(ask)).choices[0]?.message.content).toBe('answer 1');
    expect((await c.chat.completions.create(ask)).choices[0]?.message.content).toBe('answer 3');
    expect(server.connections()).toBe(2);
  });

  it('sends the caller’s headers with the platform fetch’s defaults, and sets Host and the length itself', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const server = await serve((req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    const res = await pooledFetch(`${server.url}/echo`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', host: 'elsewhere.example', 'content-length': '1' },
      body: 'four',
    });
    expect(await res.text()).toBe('ok');
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer k',
      host: new URL(server.url).host,
      'content-length': '4',
      'content-type': 'text/plain;charset=UTF-8',
      accept: '*/*',
      'accept-encoding': 'gzip, deflate, br',
    });
  });

  it('hands a form body to the platform fetch', async () => {
    const seen: string[] = [];
    const server = await serve((req, res, body) => {
      seen.push(`${req.headers['content-type'] ?? ''} ${body.includes('name="field"') ? 'with field' : ''}`);
      res.end('ok');
    });
    const form = new FormData();
    form.append('field', 'value');
    const res = await pooledFetch(`${server.url}/upload`, { method: 'POST', body: form });
    expect(await res.text()).toBe('ok');
    expect(seen[0]).toMatch(/^multipart\/form-data; boundary=.* with field$/);
  });
});
