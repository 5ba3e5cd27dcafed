/**
 * Real MCP servers for tests, built with the official SDK: a streamable HTTP server on a local
 * port (stateless: a server per request), an SSE server (the older transport), and the path of
 * a stdio server script.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildServer } from '../fixtures/mcp/tools';

/** How to start the stdio server: `command` (allow-list it in MCP_STDIO_COMMANDS) and `args`. */
export const STDIO_SERVER = {
  command: 'node',
  args: ['--import', 'tsx', path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mcp/stdioServer.ts')],
};

export interface HttpMcpServer {
  url: string;
  /** Tool calls received (name and arguments), and the headers of each request. */
  calls: Array<{ name: string; arguments: unknown }>;
  headers: Array<Record<string, string | string[] | undefined>>;
  stop(): Promise<void>;
}

export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const calls: HttpMcpServer['calls'] = [];
  const headers: HttpMcpServer['headers'] = [];
  const http: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      headers.push(req.headers);
      const body = raw ? (JSON.parse(raw) as { method?: string; params?: { name: string; arguments: unknown } }) : undefined;
      if (body?.method === 'tools/call' && body.params) calls.push({ name: body.params.name, arguments: body.params.arguments });
      const server = buildServer('http');
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res, body));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    headers,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** An SSE MCP server: `GET /sse` opens a session's stream, `POST /messages?sessionId=` carries requests. */
export async function startSseMcpServer(): Promise<HttpMcpServer> {
  const calls: HttpMcpServer['calls'] = [];
  const headers: HttpMcpServer['headers'] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http: Server = createServer((req, res) => {
    headers.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://sse.test');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      void buildServer('sse').connect(transport);
      return;
    }
    const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (req.method !== 'POST' || url.pathname !== '/messages' || !transport) {
      res.writeHead(404).end('no such session');
      return;
    }
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw) as { method?: string; params?: { name: string; arguments: unknown } };
      if (body.method === 'tools/call' && body.params) calls.push({ name: body.params.name, arguments: body.params.arguments });
      void transport.handlePostMessage(req, res, body);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`,
    calls,
    headers,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
