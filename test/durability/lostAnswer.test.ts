/**
 * A form answer whose workflow task dies (issue 30, item 3; three of fifty runs stuck in the
 * chaos run). The answer reaches a worker, which writes the run's continuation through a local
 * activity and is SIGKILLed before it completes the workflow task; the client that sent the
 * answer is gone too (an API process killed mid-answer), and the Temporal server restarts, so
 * the answer Temporal held in memory for the task is lost, as when its update registry is
 * cleared. Before the fix the store already held the continuation and a finished row while the
 * workflow waited for the form forever, and the API refused the answer given again (409).
 * Now the task that takes an answer writes nothing, so the answer is in history before its
 * continuation is written: the run finishes, and its log holds one continuation, the workflow's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { skipBecause } from '../helpers/skip';
import { buildApp } from '../../api/app';
import type { AppDeps } from '../../api/deps';
import { knowledgeDeps } from '../../src/io/knowledge/deps';
import { silentLogger } from '../../src/io/log';
import { mcpPolicyFromEnv } from '../../src/io/mcp/connect';
import { DEFAULT_RUN_SETTINGS } from '../../src/core/runSettings';
import type { Store } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { startDevServer, type DevServer } from '../../src/io/temporal/devServer';
import { pickFreePort } from '../../src/io/temporal/ports';
import { submitInputsUpdate, type CanvasRunResult } from '../../workflows/definitions';
import { parseSse } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { startPostgres, type StartedPostgres } from '../helpers/postgres';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startWorker, type RunningWorker } from '../helpers/temporal';

const root = path.resolve(__dirname, '../..');
const KEY = `lost-answer-key-${randomBytes(6).toString('hex')}`;
const TENANT = 'tenant-lost-answer';

let pg: StartedPostgres | null = null;
let skipped: string | null = null;
let store: Store;
let llm: ScriptedLlm;
let dir: string;
let server: DevServer | null = null;
let restartServer: () => Promise<DevServer>;
let connection: Connection;
let client: Client;
let app: FastifyInstance;
let base: string;
let healthy: RunningWorker | null = null;
let dying: ChildProcess | null = null;
const taskQueue = `lost-answer-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  const started = await startPostgres();
  if ('skipped' in started) {
    skipped = started.skipped;
    return;
  }
  pg = started;
  // A Temporal server of its own, on a file, so that it can restart and forget what it held in memory.
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('the Temporal CLI is needed for a file-persistent dev server');
  dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-lost-answer-'));
  const port = await pickFreePort();
  restartServer = () => startDevServer({ cliPath: cli.path, dbFile: path.join(dir, 'temporal.db'), port });
  server = await restartServer();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
  [store, llm] = await Promise.all([openStore({ databaseUrl: pg.url, apiKeySecret: 'lost-answer' }), startScriptedLlm()]);
  await store.tenants.ensure(TENANT, 'T');
  await store.tenants.addApiKey(TENANT, KEY);
  const deps: AppDeps = {
    store,
    temporal: client,
    taskQueue,
    runSettings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 },
    log: silentLogger,
    bodyLimit: 1024 * 1024,
    mcp: { policy: mcpPolicyFromEnv({}) },
    knowledge: knowledgeDeps(store, {}),
  };
  app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  dying?.kill('SIGKILL');
  await healthy?.stop();
  await app?.close();
  await Promise.all([connection?.close(), llm?.stop(), store?.close()]);
  await server?.stop();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const call = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(`${base}${url}`, { method, headers: auth, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
};

/** Starts the worker that dies right after it stored a write holding `text`; resolves once it polls. */
async function startDyingWorker(text: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/dyingWorker.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: pg!.url,
      TEMPORAL_ADDRESS: server!.address,
      TASK_QUEUE: taskQueue,
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      LLM_BASE_URL: llm.url,
      DIE_AFTER_TEXT: text,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('dying worker polling')) resolve();
    });
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', () => reject(new Error(`the dying worker exited early:\n${output}`)));
  });
  return child;
}

describe('a form answer whose workflow task dies after writing the continuation', () => {
  it('resumes the run once the answer is given again, and the log holds one continuation', async (ctx) => {
    if (skipped) skipBecause(ctx, skipped);
    dying = await startDyingWorker('Approved by');
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['UserFillUp:approve'] },
      'UserFillUp:approve': {
        name: 'UserFillUp',
        params: { tips: 'Who approves?', inputs: { approver: { type: 'line', optional: false } } },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['Approved by {UserFillUp:approve@approver}.'] } },
    });
    const agentId = ((await call('POST', '/api/v1/agents', { title: 'lost answer', dsl: canvas })).body.data as { id: string }).id;
    const started = await call('POST', '/api/v1/runs', { agent_id: agentId, query: 'go' });
    expect(started.status).toBe(202);
    const runId = String(started.body.task_id);
    const workflowId = String(started.body.workflow_id);
    for (let waited = 0; (await call('GET', `/api/v1/runs/${runId}`)).body.status !== 'paused'; waited += 200) {
      if (waited > 60_000) throw new Error('the run never paused at its form');
      await new Promise((r) => setTimeout(r, 200));
    }
    const pause = (await call('GET', `/api/v1/runs/${runId}`)).body.pending_inputs as { event_seq: number };

    // The first answer, from a client that goes away after a few seconds (an API process killed mid-answer).
    const exited = new Promise((r) => dying!.once('exit', (_code, signal) => r(signal)));
    const handle = client.workflow.getHandle(workflowId);
    await connection
      .withDeadline(Date.now() + 4000, () =>
        handle.executeUpdate(submitInputsUpdate, { args: [{ inputs: { approver: 'Ada' } }], updateId: `inputs-${runId}-${pause.event_seq}` }),
      )
      .catch(() => undefined);
    expect(await exited, 'the worker died right after its write').toBe('SIGKILL');
    dying = null;
    await server!.stop();
    server = await restartServer();

    // Another worker comes; the answer is given again (a different one: whichever the workflow takes, the log must show it).
    const native = await NativeConnection.connect({ address: server.address });
    const worker = await startWorker({ nativeConnection: native, store, llmBaseUrl: llm.url, taskQueue });
    healthy = { taskQueue, stop: async () => (await worker.stop(), await native.close()) };
    let again = await call('POST', `/api/v1/runs/${runId}/inputs`, { inputs: { approver: 'Bob' } });
    for (let tries = 0; again.status === 503 && tries < 8; tries++) again = await call('POST', `/api/v1/runs/${runId}/inputs`, { inputs: { approver: 'Bob' } });
    expect([202, 409], JSON.stringify(again.body)).toContain(again.status);

    const result = await Promise.race([
      handle.result() as Promise<CanvasRunResult>,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the workflow still waits for its form')), 60_000)),
    ]);
    expect(result.status).toBe('finished');
    const res = await fetch(`${base}/api/v1/runs/${runId}/events`, { headers: auth, signal: AbortSignal.timeout(60_000) });
    const events = parseSse(await res.text())
      .filter((m) => m.json)
      .map((m) => m.json!);
    const shown = events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    expect(shown).toBe(result.content);
    expect(events.filter((e) => e.event === 'workflow_finished')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'node_started' && (e.data as { component_id?: string }).component_id === 'Message:m')).toHaveLength(1);
    expect((await call('GET', `/api/v1/runs/${runId}`)).body.status).toBe('finished');
  }, 300_000);
});
