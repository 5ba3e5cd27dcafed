/**
 * A Temporal outage while model answers stream: a dev server of this file's own, persisted to a
 * SQLite file, is stopped a few seconds into four streams and started again on the same file and
 * port `OUTAGE_S` later. The streams go on meanwhile (the model and the store are up) and end
 * during the outage; the worker delivers their results once the server is back.
 *
 * Whether a model call is paid twice depends on the activities' heartbeat timeout: the server
 * counts the outage as silence (no heartbeat can reach it), and on restart it times out every
 * attempt whose last heartbeat is older than the timeout, retries it, and refuses the late
 * completion. With a timeout longer than the outage (the default, ACTIVITY_HEARTBEAT_TIMEOUT_MS)
 * each call is made once; with one shorter, each in-flight call is made again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { skipBecause } from '../helpers/skip';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { startDevServer, type DevServer } from '../../src/io/temporal/devServer';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { startWorker } from '../helpers/temporal';

const OUTAGE_S = Number(process.env.TEMPORAL_OUTAGE_S ?? 30);
const STREAMS = 4;
const ANSWER = Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ');
const root = path.resolve(import.meta.dirname, '../..');

let store: Store;
let llm: ScriptedLlm;
let dir: string;
let cliPath: string | null = null;

beforeAll(async () => {
  [store, llm] = await Promise.all([openStore({}), startScriptedLlm()]);
  await store.tenants.ensure('tenant-temporal-outage', 'temporal outage');
  dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-temporal-outage-'));
  cliPath = (await obtainTemporalCli({ projectRoot: root, log: () => {} }))?.path ?? null;
});

afterAll(async () => {
  await Promise.all([llm?.stop(), store?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Starts streams, stops Temporal mid-stream for OUTAGE_S, and counts the model calls per run. */
async function streamsThroughOutage(heartbeatTimeoutMs: number, name: string): Promise<{ calls: number[]; results: CanvasRunResult[] }> {
  const dbFile = path.join(dir, `${name}.db`);
  let server: DevServer = await startDevServer({ cliPath: cliPath!, dbFile });
  const port = Number(server.address.split(':').at(-1));
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await startWorker({ nativeConnection, store, llmBaseUrl: llm.url });
  try {
    const prompt = `Outage ${name}`;
    // Each answer streams for about 10 s: they end while the server is down.
    llm.whenPromptIncludes(prompt, { content: ANSWER, delayMs: 200 });
    const canvas = await store.canvases.create({
      tenantId: 'tenant-temporal-outage',
      title: prompt,
      dsl: dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: prompt, max_retries: 2, delay_after_error: 1 }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    });
    const deps: LaunchDeps = { store, client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs } };
    const runs = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) =>
        launchRun(deps, {
          tenantId: 'tenant-temporal-outage',
          canvas,
          sessionId: null,
          query: `go ${i}`,
          inputs: null,
          files: [],
          userId: 'u1',
          session: null,
        }),
      ),
    );
    const asked = (i: number) =>
      llm.calls.filter((c) => c.body.messages.some((m) => m.content === `go ${i}`) && c.body.messages.some((m) => String(m.content).includes(prompt)));
    while (runs.some((_, i) => asked(i).length === 0)) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 2_000));
    await server.stop();
    const down = Date.now();
    await new Promise((r) => setTimeout(r, OUTAGE_S * 1000));
    server = await startDevServer({ cliPath: cliPath!, dbFile, port });
    console.log(`[temporal outage ${name}] server down ${((Date.now() - down) / 1000).toFixed(1)} s`);
    const results = await Promise.all(runs.map((r) => client.workflow.getHandle(r.workflowId).result() as Promise<CanvasRunResult>));
    return { calls: runs.map((_, i) => asked(i).length), results };
  } finally {
    await worker.stop().catch(() => {});
    await Promise.all([connection.close(), nativeConnection.close()]).catch(() => {});
    await server.stop();
  }
}

// The two cases run side by side (each has its own dev server, database file and prompt): their
// outages overlap instead of adding up.
describe.concurrent('a Temporal outage while model answers stream', () => {
  it(`does not call the model again for a ${OUTAGE_S} s outage with the default heartbeat timeout`, async (t) => {
    const { expect } = t;
    if (!cliPath) skipBecause(t, 'no Temporal CLI to start a persisted dev server with');
    const { calls, results } = await streamsThroughOutage(DEFAULT_RUN_SETTINGS.heartbeatTimeoutMs, 'default');
    console.log(
      `[temporal outage] heartbeat timeout ${DEFAULT_RUN_SETTINGS.heartbeatTimeoutMs} ms, ${OUTAGE_S} s outage: model calls per run ${calls.join(', ')}`,
    );
    expect(results.map((r) => r.content)).toEqual(Array(STREAMS).fill(ANSWER));
    expect(calls).toEqual(Array(STREAMS).fill(1));
  }, 180_000);

  it(`calls each in-flight model again when the heartbeat timeout is shorter than the outage (10 s, the old default)`, async (t) => {
    const { expect } = t;
    if (!cliPath) skipBecause(t, 'no Temporal CLI to start a persisted dev server with');
    const { calls, results } = await streamsThroughOutage(10_000, 'short');
    console.log(`[temporal outage] heartbeat timeout 10000 ms, ${OUTAGE_S} s outage: model calls per run ${calls.join(', ')}`);
    expect(results.map((r) => r.content)).toEqual(Array(STREAMS).fill(ANSWER));
    // Made again, at most once each. A stream whose end the worker reports the moment the server is
    // back can win the race with the server's own heartbeat timeout for it, and is not repeated
    // (seen once in CI under load: 2, 2, 2, 1); most are.
    expect(calls.every((n) => n === 1 || n === 2)).toBe(true);
    expect(calls.filter((n) => n === 2).length).toBeGreaterThanOrEqual(STREAMS / 2);
  }, 180_000);
});
