/**
 * MCP server routes (RAGFlow's /api/v1/mcp/servers) over HTTP, against real MCP servers built
 * with the official SDK; then an Agent of a saved canvas uses a registered server by its mcp_id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { STDIO_SERVER, startHttpMcpServer, type HttpMcpServer } from '../helpers/mcpServers';

let h: Harness;
let mcp: HttpMcpServer;

beforeAll(async () => {
  mcp = await startHttpMcpServer();
  // The test server is on loopback: the network guard lets it through only by name; port 9 (discard) stands for a server that is down.
  h = await startHarness({ env: { MCP_STDIO_COMMANDS: 'node', NETWORK_ALLOW_HOSTS: `${new URL(mcp.url).host},127.0.0.1:9` } });
});

afterAll(async () => Promise.all([h?.close(), mcp?.stop()]));

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };

describe('MCP server routes', () => {
  it('registers a streamable HTTP server with its tools, lists, reads, updates and deletes it', async () => {
    const created = (
      await api(h, 'POST', '/api/v1/mcp/servers', {
        body: {
          name: 'orders-http',
          url: mcp.url,
          server_type: 'streamable-http',
          headers: { Authorization: 'Bearer ${authorization_token}' },
          variables: { authorization_token: 't0k' },
        },
      })
    ).body as Envelope;
    expect(created.code).toBe(0);
    const id = String(created.data.id);
    expect(Object.keys((created.data.variables as { tools: object }).tools).sort()).toEqual(['fail_always', 'lookup_order']);
    expect(mcp.headers.at(-1)!.authorization).toBe('Bearer t0k');

    const list = (await api(h, 'GET', '/api/v1/mcp/servers?keywords=ORDERS')).body as Envelope<{ mcp_servers: Array<{ id: string }>; total: number }>;
    expect(list.data.total).toBe(1);
    expect(list.data.mcp_servers[0]!.id).toBe(id);

    const detail = (await api(h, 'GET', `/api/v1/mcp/servers/${id}`)).body as Envelope;
    expect(detail.data).toMatchObject({ id, name: 'orders-http', server_type: 'streamable-http', url: mcp.url });
    const exported = (await api(h, 'GET', `/api/v1/mcp/servers/${id}?mode=download`)).body as Envelope;
    expect(exported.data).toMatchObject({ mcpServers: { 'orders-http': { type: 'streamable-http', url: mcp.url, authorization_token: 't0k' } } });

    const renamed = (await api(h, 'PUT', `/api/v1/mcp/servers/${id}`, { body: { name: 'orders' } })).body as Envelope;
    expect(renamed).toMatchObject({ code: 0, data: { name: 'orders' } });

    // Another tenant sees nothing of it.
    const foreign = (await api(h, 'GET', `/api/v1/mcp/servers/${id}`, { key: h.otherKey })).body as Envelope;
    expect(foreign.code).toBe(102);

    expect((await api(h, 'DELETE', `/api/v1/mcp/servers/${id}`)).body).toMatchObject({ code: 0, data: true });
    expect(((await api(h, 'GET', `/api/v1/mcp/servers/${id}`)).body as Envelope).code).toBe(102);
  });

  it('refuses bad definitions with RAGFlow’s messages, naming what is wrong', async () => {
    const post = async (body: Record<string, unknown>) => (await api(h, 'POST', '/api/v1/mcp/servers', { body })).body as Envelope;
    expect(await post({ name: 'x', server_type: 'streamable-http' })).toMatchObject({ code: 101, message: expect.stringContaining('url') });
    expect(await post({ name: 'x', url: mcp.url, server_type: 'websocket' })).toMatchObject({ code: 102, message: 'Unsupported MCP server type.' });
    expect(await post({ name: 'x', url: 'ftp://example.test', server_type: 'sse' })).toMatchObject({
      code: 102,
      message: expect.stringContaining('url: must be http(s)'),
    });
    expect(await post({ name: 'x', url: 'http://169.254.169.254/latest', server_type: 'sse' })).toMatchObject({
      code: 102,
      message: expect.stringContaining('metadata'),
    });
    expect(await post({ name: 'down', url: 'http://127.0.0.1:9/mcp', server_type: 'streamable-http', timeout: 2 })).toMatchObject({
      code: 102,
      message: 'MCP server down: cannot connect',
    });
    expect(await post({ name: 'shell', server_type: 'stdio', command: 'bash', args: ['-c', 'id'] })).toMatchObject({
      code: 102,
      message: expect.stringContaining('not in MCP_STDIO_COMMANDS'),
    });
    await post({ name: 'dup', url: mcp.url, server_type: 'streamable-http' });
    expect(await post({ name: 'DUP', url: mcp.url, server_type: 'streamable-http' })).toMatchObject({ code: 102, message: 'Duplicated MCP server name.' });
  });

  it('tests a definition without saving it', async () => {
    const res = (await api(h, 'POST', '/api/v1/mcp/servers/probe/test', { body: { url: mcp.url, server_type: 'streamable-http' } })).body as Envelope<
      Array<{ name: string; enabled: boolean }>
    >;
    expect(res.data.map((t) => [t.name, t.enabled])).toEqual([
      ['lookup_order', true],
      ['fail_always', true],
    ]);
  });

  it('lets an Agent call a tool of a registered stdio server by its mcp_id', async () => {
    const created = (await api(h, 'POST', '/api/v1/mcp/servers', { body: { name: 'orders-stdio', server_type: 'stdio', ...STDIO_SERVER } })).body as Envelope;
    expect(created.code, JSON.stringify(created)).toBe(0);
    const tools = (created.data.variables as { tools: Record<string, unknown> }).tools;
    h.llm.whenPromptIncludes('MARK-api-mcp', (call) =>
      call.body.messages.some((m) => m.role === 'tool')
        ? { content: 'Shipped, says the warehouse.' }
        : { toolCalls: [{ id: 'o1', name: 'lookup_order_0', arguments: '{"order_id": "Z-9"}' }] },
    );
    // The editor stores the server's tools in the DSL, as RAGFlow's does.
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': {
        name: 'Agent',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-api-mcp', mcp: [{ mcp_id: created.data.id, tools: { lookup_order: tools.lookup_order } }] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
    const agent = (await api(h, 'POST', '/api/v1/agents', { body: { title: `mcp agent ${Date.now()}`, dsl: canvas } })).body as Envelope;
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agent.data.id, query: 'where is Z-9?', stream: true } });
    const events = parseSse(res.text)
      .filter((m) => m.json)
      .map((m) => m.json!);
    expect(events.map((e) => e.event).at(-1)).toBe('workflow_finished');
    const call = events.find((e) => e.event === 'tool_call')!.data as { result: string; tool_name: string };
    expect(call).toMatchObject({ tool_name: 'lookup_order', result: 'order Z-9 (via stdio): shipped on 2026-11-02' });
  });
});
