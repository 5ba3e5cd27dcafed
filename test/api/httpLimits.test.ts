/**
 * What one HTTP client can hold open is bounded (api/httpLimits.ts): a socket that stalls in its
 * headers or its body is closed at the timeout, sockets over the per-address limit are closed as
 * they arrive while other addresses are served, and an SSE stream that is quiet for longer than
 * the request timeout stays open (the timeout covers reading the request, not answering it).
 * Each case runs against its own API instance with small limits, over real sockets.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app';
import { DEFAULT_HTTP_LIMITS, httpLimitsFromEnv, type HttpLimits } from '../../api/httpLimits';
import { api, startHarness, streamSse, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await h?.close();
});

/** An API instance on the harness's store and worker, with these limits; its port. */
async function apiWith(limits: Partial<HttpLimits>): Promise<number> {
  const app = await buildApp({ ...h.deps, httpLimits: { ...DEFAULT_HTTP_LIMITS, ...limits } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  apps.push(app);
  return (app.server.address() as AddressInfo).port;
}

interface Held {
  socket: Socket;
  /** Resolves with ms from open to close (and what the server said, if anything). */
  closed: Promise<{ afterMs: number; said: string }>;
}

/** Opens a socket from `localAddress`, sends `bytes` and stalls. */
function hold(port: number, bytes: string, localAddress = '127.0.0.1'): Promise<Held> {
  return new Promise((resolve, reject) => {
    const opened = Date.now();
    let said = '';
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    socket.on('data', (d: Buffer) => (said += d.toString()));
    socket.on('error', () => {});
    const closed = new Promise<{ afterMs: number; said: string }>((r) => socket.once('close', () => r({ afterMs: Date.now() - opened, said })));
    socket.once('connect', () => {
      if (bytes) socket.write(bytes);
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

const stillOpenAfter = async (held: Held, ms: number) =>
  Promise.race([held.closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(!held.socket.destroyed), ms))]);

/** GET /health on a fresh connection from `localAddress`. */
function health(port: number, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/health', localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('request timeouts', () => {
  it('closes a socket that sends part of its headers and stalls (slowloris) at the headers timeout', async () => {
    const port = await apiWith({ headersTimeoutMs: 1000, requestTimeoutMs: 5000 });
    const held = await hold(port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const { afterMs, said } = await held.closed;
    expect(afterMs).toBeGreaterThanOrEqual(900);
    expect(afterMs).toBeLessThan(4000);
    expect(said).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a socket that opens and sends nothing at the headers timeout', async () => {
    const port = await apiWith({ headersTimeoutMs: 1000, requestTimeoutMs: 5000 });
    const { afterMs } = await (await hold(port, '')).closed;
    expect(afterMs).toBeLessThan(4000);
  });

  it('closes a socket whose body stalls at the request timeout', async () => {
    const port = await apiWith({ headersTimeoutMs: 500, requestTimeoutMs: 1500 });
    const held = await hold(
      port,
      `POST /api/v1/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"ti`,
    );
    const { afterMs, said } = await held.closed;
    expect(afterMs).toBeGreaterThanOrEqual(1400);
    expect(afterMs).toBeLessThan(5000);
    expect(said).toMatch(/^HTTP\/1\.1 408/);
  });

  it('keeps an SSE answer open while it is quiet for longer than the request timeout', async () => {
    const port = await apiWith({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    h.llm.whenPromptIncludes('MARK-quiet-stream', { content: 'slow steady answer', chunkWords: 1, delayMs: 1500 });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-quiet-stream', prompts: [{ role: 'user', content: '{sys.query}' }] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
    });
    const agentId = ((await api(h, 'POST', '/api/v1/agents', { body: { title: `quiet ${Date.now()}`, dsl: canvas } })).body as { data: { id: string } }).data
      .id;
    const started = Date.now();
    const messages = await streamSse(
      `http://127.0.0.1:${port}/api/v1/agents/chat/completions`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, query: 'go', stream: true }),
      },
      () => {},
    );
    const text = messages
      .filter((m) => m.json?.event === 'message')
      .map((m) => String((m.json!.data as { content?: unknown }).content ?? ''))
      .join('');
    expect(Date.now() - started).toBeGreaterThan(3000);
    expect(text).toContain('slow steady answer');
    expect(messages.some((m) => m.json?.event === 'message_end')).toBe(true);
  }, 60_000);
});

describe('connections per client address', () => {
  it('closes the sockets over the limit at once, and serves /health to another address meanwhile', async () => {
    const port = await apiWith({ headersTimeoutMs: 30_000, requestTimeoutMs: 60_000, maxConnectionsPerAddress: 5 });
    const held = await Promise.all(Array.from({ length: 8 }, () => hold(port, 'GET /health HTTP/1.1\r\n')));
    const open = await Promise.all(held.map((x) => stillOpenAfter(x, 500)));
    expect(open.filter(Boolean)).toHaveLength(5);
    expect(await health(port, '127.0.0.2')).toBe(200);
    // Once the held sockets go, the address is served again (as soon as the server has seen them close).
    for (const x of held) x.socket.destroy();
    await Promise.all(held.map((x) => x.closed));
    let again = 0;
    for (let attempt = 0; attempt < 50 && again === 0; attempt++)
      again = await health(port, '127.0.0.1').catch(() => new Promise<number>((r) => setTimeout(() => r(0), 100)));
    expect(again).toBe(200);
  });
});

describe('connections in all', () => {
  it('at the limit, closes the oldest socket still waiting for its headers to serve a new client', async () => {
    const port = await apiWith({ headersTimeoutMs: 30_000, requestTimeoutMs: 60_000, maxConnectionsPerAddress: 0, maxConnections: 4 });
    const held: Held[] = [];
    for (let i = 0; i < 4; i++) {
      held.push(await hold(port, 'GET /health HTTP/1.1\r\n'));
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await health(port, '127.0.0.2')).toBe(200);
    expect(await stillOpenAfter(held[0]!, 300)).toBe(false);
    expect((await Promise.all(held.slice(1).map((x) => stillOpenAfter(x, 100)))).every(Boolean)).toBe(true);
    for (const x of held) x.socket.destroy();
  });
});

describe('failed API keys', () => {
  it('answers 429 with Retry-After once an address has failed the limit, while a valid key from another address is served', async () => {
    const port = await apiWith({ authFailureLimit: 5, authFailureWindowMs: 60_000 });
    const call = (key: string, localAddress = '127.0.0.1') =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/api/v1/agents', localAddress, agent: false, headers: { authorization: `Bearer ${key}` } },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    for (let i = 0; i < 5; i++) {
      const refused = await call(`wrong-${i}`);
      expect(refused.status).toBe(401);
      expect(refused.headers.connection).toBe('close');
    }
    const throttled = await call('wrong-6');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(JSON.parse(throttled.body)).toMatchObject({ code: 429, message: expect.stringContaining('Too many failed API key attempts') as unknown });
    // The throttled address is refused even with a valid key: a guesser learns nothing more.
    expect((await call(h.key)).status).toBe(429);
    expect((await call(h.key, '127.0.0.3')).status).toBe(200);
  });
});

describe('behind a trusted proxy', () => {
  it('throttles the forwarded client, not the proxy every client shares', async () => {
    const port = await apiWith({ authFailureLimit: 3, trustProxy: '127.0.0.1' });
    const call = (key: string, client: string) =>
      fetch(`http://127.0.0.1:${port}/api/v1/agents`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': client } }).then((r) => r.status);
    for (let i = 0; i < 3; i++) expect(await call(`wrong-${i}`, '203.0.113.5')).toBe(401);
    expect(await call(h.key, '203.0.113.5')).toBe(429);
    expect(await call(h.key, '203.0.113.6')).toBe(200);
  });
});

describe('settings', () => {
  it('reads every limit from its environment variable and names a bad one', () => {
    expect(httpLimitsFromEnv({ HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0', AUTH_FAILURE_LIMIT: '7' })).toMatchObject({
      headersTimeoutMs: 2000,
      maxConnectionsPerAddress: 0,
      authFailureLimit: 7,
      requestTimeoutMs: DEFAULT_HTTP_LIMITS.requestTimeoutMs,
    });
    expect(() => httpLimitsFromEnv({ HTTP_REQUEST_TIMEOUT_MS: '10s' })).toThrow('HTTP_REQUEST_TIMEOUT_MS must be a whole number ≥ 0, got "10s"');
    expect(() => httpLimitsFromEnv({ HTTP_HEADERS_TIMEOUT_MS: '0' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS must be above 0/);
    expect(httpLimitsFromEnv({ FORM_ANSWER_WAIT_MS: '5000' }).formAnswerWaitMs).toBe(5000);
    expect(() => httpLimitsFromEnv({ FORM_ANSWER_WAIT_MS: '0' })).toThrow(/FORM_ANSWER_WAIT_MS must be above 0/);
    expect(httpLimitsFromEnv({ HTTP_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
    expect(httpLimitsFromEnv({}).trustProxy).toBe(false);
  });
});
