/**
 * Exactly once per turn: the worker running a canvas is SIGKILLed right after its Message saved
 * the turn to a memory, before Temporal heard the save completed. Another worker retries the
 * save, which finds the turn's key (run, node, position) already in the memory: the run
 * finishes, and the memory holds one message, not two.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app';
import { knowledgeDeps } from '../../src/io/knowledge/deps';
import { silentLogger } from '../../src/io/log';
import { mcpPolicyFromEnv } from '../../src/io/mcp/connect';
import { DEFAULT_RUN_SETTINGS } from '../../src/core/runSettings';
import type { Store } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import type { CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startPostgres, type StartedPostgres } from '../helpers/postgres';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { skipBecause } from '../helpers/skip';
import { startWorker, type RunningWorker } from '../helpers/temporal';

const root = path.resolve(__dirname, '../..');
const KEY = `memory-crash-key-${randomBytes(6).toString('hex')}`;
const TENANT = 'tenant-memory-crash';
const taskQueue = `memory-crash-${randomBytes(6).toString('hex')}`;

let pg: StartedPostgres | null = null;
let skipped: string | null = null;
let store: Store;
let llm: ScriptedLlm;
let connection: Connection;
let client: Client;
let app: FastifyInstance;
let base: string;
let dir: string;
let healthy: RunningWorker | null = null;
let dying: ChildProcess | null = null;

beforeAll(async () => {
  const started = await startPostgres();
  if ('skipped' in started) {
    skipped = started.skipped;
    return;
  }
  pg = started;
  dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-memory-crash-'));
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
  [store, llm] = await Promise.all([openStore({ databaseUrl: pg.url, apiKeySecret: 'memory-crash' }), startScriptedLlm()]);
  await store.tenants.ensure(TENANT, 'T');
  await store.tenants.addApiKey(TENANT, KEY);
  app = await buildApp({
    store,
    temporal: client,
    taskQueue,
    // A dead worker's activity is handed on once its heartbeat is 2 s late.
    runSettings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 },
    log: silentLogger,
    bodyLimit: 1024 * 1024,
    mcp: { policy: mcpPolicyFromEnv({}) },
    knowledge: knowledgeDeps(store, {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  dying?.kill('SIGKILL');
  await healthy?.stop();
  await app?.close();
  await Promise.all([connection?.close(), llm?.stop(), store?.close()]);
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const call = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(`${base}${url}`, { method, headers: auth, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
};

async function startDyingWorker(saveLog: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/memoryDyingWorker.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: pg!.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TASK_QUEUE: taskQueue,
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      LLM_BASE_URL: llm.url,
      SAVE_LOG: saveLog,
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

describe('a worker killed between the memory save and the end of the run', () => {
  it('finishes the run with exactly one message saved', async (ctx) => {
    if (skipped) skipBecause(ctx, skipped);
    const saveLog = path.join(dir, 'saves.log');
    writeFileSync(saveLog, '');
    dying = await startDyingWorker(saveLog);
    const memory = await call('POST', '/api/v1/memories', {
      name: 'Crash notes',
      memory_type: ['raw'],
      embd_id: 'BAAI/bge-small-en-v1.5@Builtin',
      llm_id: 'm@OpenAI',
    });
    const memoryId = String((memory.body.data as { id: string }).id);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Message:ack'] },
      'Message:ack': { name: 'Message', params: { content: ['Saved: {sys.query}'], memory_ids: [memoryId] } },
    });
    const agentId = ((await call('POST', '/api/v1/agents', { title: 'memory crash', dsl: canvas })).body.data as { id: string }).id;
    const exited = new Promise((r) => dying!.once('exit', (_code, signal) => r(signal)));
    const started = await call('POST', '/api/v1/runs', { agent_id: agentId, query: 'my parking spot is B7' });
    expect(started.status).toBe(202);
    expect(await exited, 'the worker died right after its save').toBe('SIGKILL');
    dying = null;
    expect(await store.memories.messages.count(TENANT, memoryId), 'the save the dead worker made').toBe(1);

    const native = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await startWorker({ nativeConnection: native, store, llmBaseUrl: llm.url, taskQueue });
    healthy = { taskQueue, stop: async () => (await worker.stop(), await native.close()) };
    const handle = client.workflow.getHandle(String(started.body.workflow_id));
    const result = (await handle.result()) as CanvasRunResult;
    expect(result).toMatchObject({ status: 'finished', content: 'Saved: my parking spot is B7' });

    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'memorySave');
    const startedAttempts = (history.events ?? []).flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 0] : [],
    );
    const attempts = Math.max(...startedAttempts);
    const messages = await store.memories.messages.count(TENANT, memoryId);
    console.log(
      `[memory crash] memorySave scheduled ${scheduled.length}×, attempts ${attempts} (the dead worker's ${readFileSync(saveLog, 'utf8').trim().split('\n').length}), messages stored ${messages}`,
    );
    expect(scheduled).toHaveLength(1);
    expect(attempts).toBe(2);
    expect(messages).toBe(1);
    const recent = (await call('GET', `/api/v1/messages?memory_id=${memoryId}`)).body.data as Array<{ content: string }>;
    expect(recent.map((m) => m.content)).toEqual(['User Input: my parking spot is B7\nAgent Response: Saved: my parking spot is B7']);
  }, 300_000);
});
