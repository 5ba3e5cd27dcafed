/**
 * The MCP activities on their own, in Temporal's MockActivityEnvironment, against real MCP
 * servers on local ports (NETWORK_ALLOW_HOSTS lets the guard reach them): a tool's answer (and a
 * tool's own error) goes to the model as text; a target the network guard refuses fails with the
 * guard's message, not retried; a server that fails is retried and reported generically, never
 * quoting what it answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpActivities } from '../../activities/mcp';
import type { McpToolInfo } from '../../src/core/components/callContracts';
import { silentLogger } from '../../src/io/log';
import { mcpPolicyFromEnv } from '../../src/io/mcp/connect';
import { McpPool } from '../../src/io/mcp/pool';
import type { Store } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import { dsl } from '../helpers/canvasKit';
import { startHttpMcpServer, type HttpMcpServer } from '../helpers/mcpServers';
import { rejection } from '../helpers/rejection';

const tenantId = 'tenant-mcp-activity';
const env = { NETWORK_ALLOW_HOSTS: '127.0.0.1' };
/** What the failing server answers: it must never reach the model or the run's error. */
const LEAKED = 'internal-db-password=hunter2';

let store: Store;
let mcp: HttpMcpServer;
let failing: Server;
let pool: McpPool;
let runId: string;
const ids = { ok: '', refused: '', failing: '' };

beforeAll(async () => {
  [store, mcp] = await Promise.all([openStore({}), startHttpMcpServer()]);
  failing = createServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(LEAKED));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  pool = new McpPool(mcpPolicyFromEnv(env));
  await store.tenants.ensure(tenantId, 'mcp activity tests');
  const add = async (name: string, url: string) => (await store.mcpServers.create({ tenantId, name, serverType: 'streamable-http', url })).id;
  ids.ok = await add('orders', mcp.url);
  // A private address outside NETWORK_ALLOW_HOSTS, stored directly (the API would refuse it).
  ids.refused = await add('private', 'http://10.0.0.1/mcp');
  ids.failing = await add('failing', `http://127.0.0.1:${(failing.address() as AddressInfo).port}/mcp`);
  const canvas = await store.canvases.create({ tenantId, title: 'mcp', dsl: dsl({ begin: { name: 'Begin' } }) });
  runId = `run-${Date.now()}`;
  await store.runs.create({ id: runId, tenantId, canvasId: canvas.id, sessionId: null, workflowId: `wf-${runId}`, canvasVersionId: canvas.version_id });
});

afterAll(async () => {
  await pool?.closeAll();
  failing?.closeAllConnections();
  await new Promise<void>((resolve) => (failing ? failing.close(() => resolve()) : resolve()));
  await mcp?.stop();
  await store?.close();
});

const activities = () => createMcpActivities({ store, log: silentLogger, env, pool });
const call = (mcpId: string, tool: string, args: Record<string, unknown> = {}) => ({ runId, mcpId, tool, args, timeoutMs: 10_000 });

describe('the MCP activities', () => {
  it('list the tools of a server and return what a tool answers', async () => {
    const { mcpListTools, mcpCall } = activities();
    const { tools }: { tools: McpToolInfo[] } = await new MockActivityEnvironment().run(mcpListTools, { runId, mcpId: ids.ok, timeoutMs: 10_000 });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['lookup_order', 'fail_always']));
    const result = await new MockActivityEnvironment().run(mcpCall, call(ids.ok, 'lookup_order', { order_id: 'A-1' }));
    expect(result).toMatchObject({ text: 'order A-1 (via http): shipped on 2026-11-02', isError: false });
    expect(mcp.calls).toContainEqual({ name: 'lookup_order', arguments: { order_id: 'A-1' } });
  });

  it("hand a tool's own error to the model as text instead of failing", async () => {
    const result = await new MockActivityEnvironment().run(activities().mcpCall, call(ids.ok, 'fail_always'));
    expect(result).toMatchObject({ text: 'MCP server error: the warehouse is offline', isError: true });
  });

  it("fail a target the network guard refuses with the guard's message, not retried", async () => {
    const err = await rejection(new MockActivityEnvironment({ attempt: 1 }).run(activities().mcpCall, call(ids.refused, 'lookup_order'), { maxRetries: 3 }));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'TOOL_BAD_REQUEST', nonRetryable: true });
    expect((err as Error).message).toContain('10.0.0.1');
  });

  it('retry a failing server with a generic message that does not quote its answer', async () => {
    const err = await rejection(new MockActivityEnvironment({ attempt: 1 }).run(activities().mcpCall, call(ids.failing, 'lookup_order'), { maxRetries: 1 }));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'TOOL_UNAVAILABLE', nonRetryable: false });
    expect((err as Error).message).toMatch(/HTTP 500/);
    expect(JSON.stringify(err)).not.toContain('hunter2');
    expect((err as Error).message).not.toContain('hunter2');
  });
});
