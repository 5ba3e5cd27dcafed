/**
 * Real MCP servers for tests, built with the official SDK: a streamable HTTP server on a local
 * port (stateless: a server per request), and the path of a stdio server script.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildServer } from '../fixtures/mcp/tools';

/** How to start the stdio server: `command` (allow-list it in MCP_STDIO_COMMANDS) and `args`. */
export const STDIO_SERVER = { command: 'node', args: ['--import', 'tsx', path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mcp/stdioServer.ts')] };

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
