/**
 * Opens an MCP client session to a registered server: streamable HTTP or SSE (what RAGFlow
 * supports) or, as our extension, a local stdio command from an operator allow-list. Header
 * templates take the server's variables (`${authorization_token}`), as RAGFlow's do.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AppError } from '../../src/errors';
import type { McpToolInfo } from '../../src/components/calls';
import type { McpServerRecord } from '../../src/store/types';
import { listAllTools } from './results';

export const MCP_SERVER_TYPES = ['streamable-http', 'sse', 'stdio'] as const;

/** What operators allow MCP servers to do on this deployment. */
export interface McpPolicy {
  /** Executables a stdio server may run (exact `command` values); empty: no stdio servers. */
  stdioCommands: string[];
}

/** Reads the policy from the environment (`MCP_STDIO_COMMANDS=node,npx,uvx`). */
export function mcpPolicyFromEnv(env: Record<string, string | undefined>): McpPolicy {
  return { stdioCommands: (env.MCP_STDIO_COMMANDS ?? '').split(',').map((s) => s.trim()).filter(Boolean) };
}

/** `${name}` / `$name` placeholders filled from the server's variables; unknown ones stay. */
function substitute(template: string, vars: Record<string, unknown>): string {
  return template.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const v = vars[(braced ?? bare)!];
    return typeof v === 'string' || typeof v === 'number' ? String(v) : whole;
  });
}

export function resolveHeaders(server: Pick<McpServerRecord, 'headers' | 'variables'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(server.headers ?? {})) {
    const name = substitute(k, server.variables ?? {});
    if (name) out[name] = substitute(String(v), server.variables ?? {});
  }
  return out;
}

/** Checks a server definition against the policy; the message names the offending field. */
export function checkServer(server: Pick<McpServerRecord, 'server_type' | 'url' | 'command'>, policy: McpPolicy): void {
  if (!(MCP_SERVER_TYPES as readonly string[]).includes(server.server_type)) {
    throw new AppError('BAD_REQUEST', `server_type: must be one of ${MCP_SERVER_TYPES.join(', ')}`, { field: 'server_type' });
  }
  if (server.server_type === 'stdio') {
    if (!server.command) throw new AppError('BAD_REQUEST', 'command: a stdio MCP server needs a command', { field: 'command' });
    if (!policy.stdioCommands.includes(server.command)) {
      throw new AppError('BAD_REQUEST', `command: "${server.command}" is not in MCP_STDIO_COMMANDS (${policy.stdioCommands.join(', ') || 'empty: stdio servers are disabled'})`, { field: 'command' });
    }
    return;
  }
  let url: URL;
  try {
    url = new URL(server.url ?? '');
  } catch {
    throw new AppError('BAD_REQUEST', `url: "${server.url ?? ''}" is not a valid URL`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('BAD_REQUEST', 'url: must be http(s)', { field: 'url' });
  // Cloud metadata endpoints are never MCP servers; refusing them stops the easy SSRF.
  if (/^169\.254\.|^\[?fd00:ec2::254\]?$|^metadata\.google\.internal$/i.test(url.hostname)) {
    throw new AppError('BAD_REQUEST', `url: ${url.hostname} is a link-local metadata address`, { field: 'url' });
  }
}

function transportFor(server: McpServerRecord, policy: McpPolicy): Transport {
  checkServer(server, policy);
  if (server.server_type === 'stdio') {
    return new StdioClientTransport({ command: server.command!, args: server.args ?? [], env: { ...getDefaultEnvironment(), ...(server.env ?? {}) }, stderr: 'ignore' });
  }
  const url = new URL(server.url!);
  const requestInit = { headers: resolveHeaders(server) };
  return server.server_type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
}

/** Connects and initializes a session; a failure is TOOL_UNAVAILABLE (retryable). */
export async function connectMcp(server: McpServerRecord, policy: McpPolicy, timeoutMs: number): Promise<Client> {
  const client = new Client({ name: 'agent-canvas', version: '0.1.0' });
  const transport = transportFor(server, policy);
  try {
    await client.connect(transport, { timeout: timeoutMs });
    return client;
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new AppError('TOOL_UNAVAILABLE', `MCP server ${server.name} (${server.id}): cannot connect: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Connects once, lists the tools, closes (saving or testing a server definition). */
export async function probeTools(server: McpServerRecord, policy: McpPolicy, timeoutMs: number): Promise<McpToolInfo[]> {
  const client = await connectMcp(server, policy, timeoutMs);
  try {
    return await listAllTools(client, { timeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new AppError('TOOL_UNAVAILABLE', `MCP server ${server.name}: cannot list tools: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}
