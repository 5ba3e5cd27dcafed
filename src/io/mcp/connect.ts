/**
 * Opens an MCP client session to a registered server: streamable HTTP or SSE (what RAGFlow
 * supports) or, as our extension, a local stdio command from an operator allow-list. Header
 * templates take the server's variables (`${authorization_token}`), as RAGFlow's do.
 *
 * HTTP servers are tenant-chosen targets, so every request of both transports goes through the
 * network guard (`guardedFetchFn`: resolved once, connected to the checked address, each redirect
 * re-checked, NETWORK_ALLOW_HOSTS). A refused target is reported with the guard's message; a
 * target that fails answers a generic message (its HTTP status at most, never its body), so the
 * routes that test a definition are no port scanner.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AppError } from '../../errors';
import type { McpToolInfo } from '../../core/components/callContracts';
import type { McpServerRecord } from '../store/contract';
import { assertUrlAllowed, guardedFetchFn, RESERVED_REQUEST_HEADERS, type FetchFn, type Resolver } from '../net';
import { listAllTools } from './results';

export const MCP_SERVER_TYPES = ['streamable-http', 'sse', 'stdio'] as const;

/** What operators allow MCP servers to do on this deployment. */
export interface McpPolicy {
  /** Executables a stdio server may run (exact `command` values); empty: no stdio servers. */
  stdioCommands: string[];
  /** The network guard's settings for HTTP servers (NETWORK_ALLOW_HOSTS); `resolver` fakes DNS in tests. */
  network: { env: Record<string, string | undefined>; resolver?: Resolver };
}

/** Reads the policy from the environment (`MCP_STDIO_COMMANDS=node,npx,uvx`, `NETWORK_ALLOW_HOSTS`). */
export function mcpPolicyFromEnv(env: Record<string, string | undefined>): McpPolicy {
  return {
    stdioCommands: (env.MCP_STDIO_COMMANDS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    network: { env: { NETWORK_ALLOW_HOSTS: env.NETWORK_ALLOW_HOSTS } },
  };
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
export function checkServer(
  server: Pick<McpServerRecord, 'server_type' | 'url' | 'command'> & Partial<Pick<McpServerRecord, 'headers'>>,
  policy: McpPolicy,
): void {
  if (!(MCP_SERVER_TYPES as readonly string[]).includes(server.server_type)) {
    throw new AppError('BAD_REQUEST', `server_type: must be one of ${MCP_SERVER_TYPES.join(', ')}`, { field: 'server_type' });
  }
  if (server.server_type === 'stdio') {
    if (!server.command) throw new AppError('BAD_REQUEST', 'command: a stdio MCP server needs a command', { field: 'command' });
    if (!policy.stdioCommands.includes(server.command)) {
      throw new AppError(
        'BAD_REQUEST',
        `command: "${server.command}" is not in MCP_STDIO_COMMANDS (${policy.stdioCommands.join(', ') || 'empty: stdio servers are disabled'})`,
        { field: 'command' },
      );
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
  // The host itself is checked by the network guard when connecting (it needs DNS).
  for (const name of Object.keys(server.headers ?? {})) {
    if (RESERVED_REQUEST_HEADERS.has(name.trim().toLowerCase())) {
      throw new AppError('BAD_REQUEST', `headers.${name}: is set by the HTTP client and cannot be chosen`, { field: `headers.${name}` });
    }
  }
}

function serviceName(server: Pick<McpServerRecord, 'name'>): string {
  return `MCP server ${server.name}`;
}

/** The HTTP status a transport error carries, if any (the body it may quote is not kept). */
function httpStatusOf(err: unknown): number | null {
  const code = err instanceof StreamableHTTPError || err instanceof SseError ? err.code : undefined;
  return typeof code === 'number' && code >= 100 && code <= 599 ? code : null;
}

/**
 * What a failed MCP exchange is reported as: the guard's refusal as is (not retried); anything
 * else one generic TOOL_UNAVAILABLE message with the HTTP status at most — never the target's
 * body or the socket error, which would tell a closed port from a filtered one.
 */
export function mcpFailure(what: string, err: unknown, refused: AppError | null = null): AppError {
  if (refused) return refused;
  if (err instanceof AppError && err.code === 'TOOL_BAD_REQUEST') return err;
  const status = httpStatusOf(err);
  return new AppError('TOOL_UNAVAILABLE', `${what}${status ? ` (HTTP ${status})` : ''}`);
}

interface Session {
  transport: Transport;
  /** The first request the guard refused during the session (the SDK may wrap the error). */
  refused: () => AppError | null;
}

function transportFor(server: McpServerRecord, policy: McpPolicy): Session {
  checkServer(server, policy);
  if (server.server_type === 'stdio') {
    const transport = new StdioClientTransport({
      command: server.command!,
      args: server.args ?? [],
      env: { ...getDefaultEnvironment(), ...(server.env ?? {}) },
      stderr: 'ignore',
    });
    return { transport, refused: () => null };
  }
  let refused: AppError | null = null;
  const guarded = guardedFetchFn({ ...policy.network, service: serviceName(server) });
  const fetch: FetchFn = (input, init) =>
    guarded(input, init).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'TOOL_BAD_REQUEST') refused ??= err;
      throw err;
    });
  const url = new URL(server.url!);
  const requestInit = { headers: resolveHeaders(server) };
  // The SSE transport opens its stream with `eventSourceInit.fetch` when given, else `fetch`: both guarded.
  const transport =
    server.server_type === 'sse'
      ? new SSEClientTransport(url, { requestInit, fetch, eventSourceInit: { fetch } })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch });
  return { transport, refused: () => refused };
}

/** Connects and initializes a session; a refused target is TOOL_BAD_REQUEST, a failure TOOL_UNAVAILABLE (retryable). */
export async function connectMcp(server: McpServerRecord, policy: McpPolicy, timeoutMs: number): Promise<Client> {
  checkServer(server, policy);
  // Checked up front too, so a refusal reads the same whichever request of the handshake met it.
  if (server.server_type !== 'stdio') await assertUrlAllowed(server.url!, { ...policy.network, service: serviceName(server) });
  const client = new Client({ name: 'agent-canvas', version: '0.1.0' });
  const session = transportFor(server, policy);
  try {
    await client.connect(session.transport, { timeout: timeoutMs });
    return client;
  } catch (err) {
    await client.close().catch(() => undefined);
    throw mcpFailure(`${serviceName(server)}: cannot connect`, err, session.refused());
  }
}

/** Connects once, lists the tools, closes (saving or testing a server definition). */
export async function probeTools(server: McpServerRecord, policy: McpPolicy, timeoutMs: number): Promise<McpToolInfo[]> {
  const client = await connectMcp(server, policy, timeoutMs);
  try {
    return await listAllTools(client, { timeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw mcpFailure(`${serviceName(server)}: cannot list tools`, err);
  } finally {
    await client.close().catch(() => undefined);
  }
}
