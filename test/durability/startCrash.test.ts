/**
 * Durability of run starts: the API + worker process is SIGKILLed while 30 turns are starting.
 * To kill it mid-start every time, the app reaches Temporal through a TCP relay that stops
 * forwarding once the turns are sent, and the kill comes when the relay has seen at least ten
 * workflow starts go out. Runs recorded whose workflow never started used to stay `running`
 * forever, their sessions locked and their followers waiting. After a restart the reconciler
 * fails them: no run stays active, every follower ends, every session takes its next turn.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore } from '../../src/io/store/store';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, type TemporalHandles } from '../helpers/temporal';
import { storeDb } from '../../src/io/store/storeDb';
import { startRelay } from '../helpers/temporalRelay';

const KEY = `start-crash-key-${randomUUID()}`;
const TURNS = 30;

let llm: ScriptedLlm;
let temporal: TemporalHandles;
let dataDir: string;
let port: number;
let child: AppProcess | null = null;

beforeAll(async () => {
  [llm, temporal] = await Promise.all([startScriptedLlm(), connectTemporal()]);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-start-crash-'));
  port = await freePort();
});

afterAll(async () => {
  await child?.kill();
  await llm?.stop();
  await temporal?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface StoreFigures {
  runIds: string[];
  active: number;
  withoutWorkflow: number;
  lockedSessions: number;
}

/** What the (stopped) app's store holds, and which active runs have no workflow in Temporal. */
async function storeFigures(): Promise<StoreFigures> {
  const store = await openStore({ dataDir: path.join(dataDir, 'pglite') });
  try {
    const runs = (await storeDb(store).query<{ id: string; workflow_id: string; status: string }>('SELECT id, workflow_id, status FROM runs')).rows;
    const active = runs.filter((r) => r.status === 'running' || r.status === 'paused');
    let withoutWorkflow = 0;
    for (const r of active) {
      await temporal.client.workflow
        .getHandle(r.workflow_id)
        .describe()
        .catch((err: unknown) => {
          if (err instanceof WorkflowNotFoundError) withoutWorkflow += 1;
          else throw err;
        });
    }
    const locked = (await storeDb(store).query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE active_run_id IS NOT NULL')).rows[0]!.n;
    return { runIds: runs.map((r) => r.id), active: active.length, withoutWorkflow, lockedSessions: locked };
  } finally {
    await store.close();
  }
}

describe('a crash of the API while runs are starting', () => {
  it('leaves no run running and no session locked after a restart, and every follower ends', async () => {
    const temporalAddress = inject('temporalAddress');
    const relay = await startRelay(temporalAddress);
    // The grace period keeps the reconciler off runs whose start is under way (the next turns below).
    const extra = { RUN_RECONCILE_GRACE_S: '20', RUN_RECONCILE_INTERVAL_S: '1' };
    const env = appEnv({ port, dataDir, apiKey: KEY, llmUrl: llm.url, temporalAddress: relay.address, extra });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const post = async (url: string, body: unknown) =>
      (await fetch(`${base}${url}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json() as Promise<{
        code: number;
        message?: string;
        data: { id: string };
      }>;

    child = startAppProcess(env);
    await waitHealthy(base, child, 300_000);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['got {sys.query}'] } },
    });
    const agentId = (await post('/api/v1/agents', { title: 'start crash', dsl: canvas })).data.id;
    const sessions = await Promise.all(
      Array.from({ length: TURNS }, async (_, i) => (await post(`/api/v1/agents/${agentId}/sessions`, { name: `s${i}` })).data.id),
    );

    // All turns at once, Temporal out of reach: the process dies with starts in flight.
    relay.freeze();
    const turns = sessions.map((sessionId, i) =>
      post('/api/v1/agents/chat/completions', { agent_id: agentId, session_id: sessionId, query: `start-crash-q${i}-`, stream: false }).catch(() => null),
    );
    for (let waited = 0; relay.seen(/start-crash-q\d+-/g) < 10; waited += 200) {
      if (waited > 120_000) throw new Error(`only ${relay.seen(/start-crash-q\d+-/g)} workflow starts reached the relay`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await child.kill();
    await Promise.all(turns);
    relay.close();

    const crashed = await storeFigures();
    process.stdout.write(
      `[start crash] after the kill: ${crashed.runIds.length} runs recorded, ${crashed.active} active, ${crashed.withoutWorkflow} without a workflow, ${crashed.lockedSessions} sessions locked\n`,
    );

    child = startAppProcess({ ...env, TEMPORAL_ADDRESS: temporalAddress });
    await waitHealthy(base, child, 300_000);
    // Every follower of every recorded run ends (a follower that never ends fails by the abort).
    for (const runId of crashed.runIds) {
      const res = await fetch(`${base}/api/v1/runs/${runId}/events`, { headers: auth, signal: AbortSignal.timeout(90_000) });
      const text = await res.text();
      expect(text, `events of run ${runId}`).toContain('[DONE]');
    }
    // Every session takes its next turn.
    for (const sessionId of sessions) {
      const next = await post('/api/v1/agents/chat/completions', { agent_id: agentId, session_id: sessionId, query: 'again', stream: false });
      expect(next.code, `session ${sessionId}: ${next.message}`).toBe(0);
    }
    await child.kill();
    child = null;

    const repaired = await storeFigures();
    process.stdout.write(`[start crash] after the restart: ${repaired.active} active runs, ${repaired.lockedSessions} sessions locked\n`);
    expect(repaired.active).toBe(0);
    expect(repaired.lockedSessions).toBe(0);
  }, 900_000);
});
