/**
 * MCP connections go through the network guard (SSRF): testing a server definition, saving one,
 * and a run calling an MCP tool in the worker cannot reach a host or port NETWORK_ALLOW_HOSTS
 * does not allow, and what a failing target answers is never echoed. Allowed servers (streamable
 * HTTP and SSE) still work. A recording server on a forbidden loopback port proves that nothing
 * reached it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { startHttpMcpServer, startSseMcpServer, type HttpMcpServer } from '../helpers/mcpServers';
import { startRecordingServer, type RecordingServer } from './recordingServer';

let h: Harness;
let mcp: HttpMcpServer;
let sse: HttpMcpServer;
/** Not in NETWORK_ALLOW_HOSTS: must never see a request. */
let forbidden: RecordingServer;
/** In NETWORK_ALLOW_HOSTS, but no MCP server: it answers errors with a body that must not leak. */
let failing: RecordingServer;

beforeAll(async () => {
  [mcp, sse, forbidden, failing] = await Promise.all([startHttpMcpServer(), startSseMcpServer(), startRecordingServer(), startRecordingServer()]);
  const allow = [new URL(mcp.url).host, new URL(sse.url).host, `127.0.0.1:${failing.port}`].join(',');
  h = await startHarness({ env: { NETWORK_ALLOW_HOSTS: allow } });
});

afterAll(async () => Promise.all([h?.close(), mcp?.stop(), sse?.stop(), forbidden?.stop(), failing?.stop()]));

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };

const probe = async (body: Record<string, unknown>) =>
  (await api(h, 'POST', '/api/v1/mcp/servers/probe/test', { body: { server_type: 'streamable-http', timeout: 3, ...body } })).body as Envelope;
const BLOCKED = /blocked \(allow it with NETWORK_ALLOW_HOSTS\)/;

describe('testing an MCP server definition (POST /api/v1/mcp/servers/{id}/test)', () => {
  it.each([
    [
      'a loopback port NETWORK_ALLOW_HOSTS does not name',
      () => `http://127.0.0.1:${forbidden.port}/status?code=403`,
      /MCP server probe: 127\.0\.0\.1 is a loopback address; blocked/,
    ],
    [
      'a name that resolves to loopback',
      () => `http://localhost:${forbidden.port}/status?code=403`,
      /MCP server probe: host localhost is not allowed; blocked/,
    ],
    [
      'an IPv4-mapped metadata address',
      () => 'http://[::ffff:169.254.169.254]/latest/meta-data/',
      /IPv4-mapped form of 169\.254\.169\.254, the cloud metadata address; blocked/,
    ],
    [
      'a hexadecimal loopback address',
      () => `http://0x7f000001:${forbidden.port}/status?code=403`,
      /MCP server probe: 127\.0\.0\.1 is a loopback address; blocked/,
    ],
    ['the SSE transport to a forbidden port', () => `http://127.0.0.1:${forbidden.port}/sse`, /127\.0\.0\.1 is a loopback address; blocked/, 'sse'],
  ])('refuses %s, naming the rule, and sends it nothing', async (_what, url, message, serverType = 'streamable-http') => {
    const res = await probe({ url: url(), server_type: serverType });
    expect(res.code).toBe(102);
    expect(res.message).toMatch(message);
    expect(res.message).toMatch(BLOCKED);
    expect(forbidden.requests).toEqual([]);
  });

  it('does not follow a redirect to a forbidden port', async () => {
    const to = `http://127.0.0.1:${forbidden.port}/status?code=403`;
    const res = await probe({ url: `http://127.0.0.1:${failing.port}/redirect?status=307&to=${encodeURIComponent(to)}` });
    expect(res.code).toBe(102);
    expect(res.message).toBe('MCP server probe: cannot connect (HTTP 307)');
    expect(forbidden.requests).toEqual([]);
  });

  it('answers a failing allowed target with its status only, never its body', async () => {
    const res = await probe({ url: `http://127.0.0.1:${failing.port}/status?code=403` });
    expect(res).toMatchObject({ code: 102, message: 'MCP server probe: cannot connect (HTTP 403)' });
    expect(failing.requests.length).toBeGreaterThan(0);
  });

  it('refuses headers that would override the Host header or hop-by-hop headers', async () => {
    for (const name of ['Host', 'Transfer-Encoding', 'Connection']) {
      const res = await probe({ url: mcp.url, headers: { [name]: 'internal.example' } });
      expect(res).toMatchObject({ code: 102, message: `headers.${name}: is set by the HTTP client and cannot be chosen` });
    }
  });

  it('lists the tools of allowed servers, over streamable HTTP and SSE', async () => {
    for (const [url, serverType] of [
      [mcp.url, 'streamable-http'],
      [sse.url, 'sse'],
    ] as const) {
      const res = (await probe({
        url,
        server_type: serverType,
        headers: { Authorization: 'Bearer ${authorization_token}' },
        variables: { authorization_token: 'ok' },
      })) as unknown as Envelope<Array<{ name: string }>>;
      expect(res.code, JSON.stringify(res)).toBe(0);
      expect(res.data.map((t) => t.name)).toEqual(['lookup_order', 'fail_always']);
    }
    expect(sse.headers.some((hd) => hd.authorization === 'Bearer ok' && hd.accept === 'text/event-stream')).toBe(true);
  });
});

describe('saving an MCP server', () => {
  it('refuses a forbidden target and stores nothing', async () => {
    for (const url of [
      `http://127.0.0.1:${forbidden.port}/mcp`,
      `http://localhost:${forbidden.port}/mcp`,
      'http://[::ffff:169.254.169.254]/',
      `http://0x7f000001:${forbidden.port}/`,
    ]) {
      const res = (await api(h, 'POST', '/api/v1/mcp/servers', { body: { name: `evil-${url.length}`, url, server_type: 'streamable-http', timeout: 3 } }))
        .body as Envelope;
      expect(res.code, url).toBe(102);
      expect(res.message).toMatch(BLOCKED);
    }
    const list = (await api(h, 'GET', '/api/v1/mcp/servers?keywords=evil')).body as Envelope<{ total: number }>;
    expect(list.data.total).toBe(0);
    expect(forbidden.requests).toEqual([]);
  });
});

describe('a run calling an MCP tool in the worker', () => {
  it('cannot reach a forbidden server stored before the guard (or since moved), and does not echo its answer', async () => {
    // Stored directly: the API would refuse it, but records from before the guard exist.
    const server = await h.store.mcpServers.create({
      tenantId: 'tenant-a',
      name: `stored-evil-${Date.now()}`,
      serverType: 'streamable-http',
      url: `http://127.0.0.1:${forbidden.port}/status?code=403`,
    });
    h.llm.whenPromptIncludes('MARK-mcp-guard', (call) =>
      call.body.messages.some((m) => m.role === 'tool')
        ? { content: 'done' }
        : { toolCalls: [{ id: 'g1', name: 'lookup_order_0', arguments: '{"order_id": "A-1"}' }] },
    );
    const tool = { name: 'lookup_order', description: 'Looks up an order.', inputSchema: { type: 'object', properties: { order_id: { type: 'string' } } } };
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': {
        name: 'Agent',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-mcp-guard', mcp: [{ mcp_id: server.id, tools: { lookup_order: tool } }], max_retries: 0 },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
    const agent = (await api(h, 'POST', '/api/v1/agents', { body: { title: `mcp guard ${Date.now()}`, dsl: canvas } })).body as Envelope;
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agent.data.id, query: 'where is A-1?', stream: true } });
    expect(res.text).toMatch(/127\.0\.0\.1 is a loopback address; blocked \(allow it with NETWORK_ALLOW_HOSTS\)/);
    expect(res.text).not.toContain('status 403');
    expect(forbidden.requests).toEqual([]);
    const events = parseSse(res.text)
      .filter((m) => m.json)
      .map((m) => m.json!);
    expect(events.length).toBeGreaterThan(0);
  });
});
