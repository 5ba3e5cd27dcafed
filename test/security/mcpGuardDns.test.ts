/**
 * The network guard under an MCP connection, with a fake resolver: the socket connects to the
 * address the guard checked (a name only the fake resolver knows still works), every request is
 * checked again (a DNS answer that changes mid-session is refused), and the guarded fetch
 * re-checks each redirect and keeps the Host header and hop-by-hop headers its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpPolicyFromEnv, probeTools, type McpPolicy } from '../../src/io/mcp/connect';
import { guardedFetchFn, type Resolver } from '../../src/io/net';
import type { McpServerRecord } from '../../src/io/store/contract';
import { startHttpMcpServer, type HttpMcpServer } from '../helpers/mcpServers';
import { startRecordingServer, type RecordingServer } from './recordingServer';

let mcp: HttpMcpServer;
let allowed: RecordingServer;
let forbidden: RecordingServer;

beforeAll(async () => {
  [mcp, allowed, forbidden] = await Promise.all([startHttpMcpServer(), startRecordingServer(), startRecordingServer()]);
});

afterAll(async () => Promise.all([mcp?.stop(), allowed?.stop(), forbidden?.stop()]));

/** Answers `answers[i]` to the i-th lookup (the last one from then on); the names exist nowhere else. */
function changingResolver(answers: string[]): Resolver {
  let calls = 0;
  return async () => {
    const address = answers[Math.min(calls++, answers.length - 1)]!;
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
}

function policy(resolver: Resolver): McpPolicy {
  const base = mcpPolicyFromEnv({ NETWORK_ALLOW_HOSTS: new URL(mcp.url).host });
  return { ...base, network: { ...base.network, resolver } };
}

function serverAt(url: string): McpServerRecord {
  return {
    id: 'srv',
    tenant_id: 't',
    name: 'orders',
    description: null,
    server_type: 'streamable-http',
    url,
    command: null,
    args: [],
    env: {},
    headers: {},
    variables: {},
    create_time: 0,
    update_time: 0,
  };
}

describe('an MCP connection through the guard', () => {
  it('connects to the address the guard checked, not to what the system resolver says', async () => {
    const url = `http://mcp.pinned.test:${new URL(mcp.url).port}/mcp`;
    const tools = await probeTools(serverAt(url), policy(changingResolver(['127.0.0.1'])), 5000);
    expect(tools.map((t) => t.name)).toEqual(['lookup_order', 'fail_always']);
  });

  it('refuses a DNS answer that changes to a forbidden address between the check and a later request', async () => {
    const url = `http://mcp.rebind.test:${new URL(mcp.url).port}/mcp`;
    await expect(probeTools(serverAt(url), policy(changingResolver(['127.0.0.1', '169.254.169.254'])), 5000)).rejects.toThrow(
      'MCP server orders: host mcp.rebind.test is not allowed; blocked (allow it with NETWORK_ALLOW_HOSTS)',
    );
  });
});

describe('the guarded fetch', () => {
  const fetchFn = () => guardedFetchFn({ env: { NETWORK_ALLOW_HOSTS: `127.0.0.1:${allowed.port}` }, service: 'MCP server x' });

  it('re-checks a redirect it follows and sends nothing to a forbidden target', async () => {
    const to = `http://127.0.0.1:${forbidden.port}/secret`;
    await expect(fetchFn()(`${allowed.origin}/redirect?status=302&to=${encodeURIComponent(to)}`)).rejects.toThrow(
      `MCP server x: redirect to ${to} refused: 127.0.0.1 is a loopback address; blocked (allow it with NETWORK_ALLOW_HOSTS)`,
    );
    expect(forbidden.requests).toEqual([]);
  });

  it('keeps the Host header and hop-by-hop headers its own', async () => {
    const res = await fetchFn()(`${allowed.origin}/echo`, {
      method: 'POST',
      body: 'hi',
      headers: { Host: 'internal.example', Connection: 'upgrade', Upgrade: 'h2c', 'Content-Length': '999', 'X-Ok': '1' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ body: 'hi' });
    const seen = allowed.requests.at(-1)!.headers;
    expect(seen).toMatchObject({ host: `127.0.0.1:${allowed.port}`, 'content-length': '2', 'x-ok': '1' });
    expect(seen.upgrade).toBeUndefined();
  });

  it('reports a target it cannot reach with one message, not the socket error', async () => {
    const closed = await startRecordingServer();
    const port = closed.port;
    await closed.stop();
    const f = guardedFetchFn({ env: { NETWORK_ALLOW_HOSTS: `127.0.0.1:${port}` }, service: 'MCP server x' });
    await expect(f(`http://127.0.0.1:${port}/`)).rejects.toThrow(`MCP server x: could not reach 127.0.0.1:${port}`);
  });
});
