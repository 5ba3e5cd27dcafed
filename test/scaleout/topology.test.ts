/**
 * The scaled-out topology, run for real on this machine: a Temporal server apart (the shared dev
 * server), one PostgreSQL (Debian's binaries, not PGlite), two worker processes polling one task
 * queue and two API processes (AGENT_CANVAS_ROLE=worker / api).
 *
 * - Runs started through one API spread over both workers: the worker identities recorded in
 *   each run's Temporal history (`<pid>@<host>`) name both worker processes.
 * - A run started through API 1 is streamed by API 2, and resumed with Last-Event-ID on either,
 *   with no event missed or sent twice.
 * - A worker SIGKILLed while model calls are in flight loses no run: every run finishes on the
 *   other worker and its stored event log is complete.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, workerIdentitiesOf, type Cluster, type ClusterMember } from '../helpers/cluster';
import { approvalCanvas, markerOf, researchAgentCanvas, scriptClusterModel } from '../helpers/clusterCanvases';
import { startPostgres, type StartedPostgres } from '../helpers/postgres';
import { followRun, gapsOf, storedLog, type FollowedRun } from '../helpers/runFollower';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, type TemporalHandles } from '../helpers/temporal';
import { startWebSearchServer, type WebSearchServer } from '../helpers/webSearchServer';

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[scale-out] skipped: the processes share a PostgreSQL: ${postgres.skipped}`);

let llm: ScriptedLlm;
let web: WebSearchServer;
let temporal: TemporalHandles;
let cluster: Cluster | null = null;
/** Model calls of these markers are held open until the gate opens. */
const heldMarkers = new Set<string>();
let openGate: () => void = () => {};
const gate = new Promise<void>((resolve) => (openGate = resolve));

beforeAll(async () => {
  [llm, web, temporal] = await Promise.all([startScriptedLlm(), startWebSearchServer(), connectTemporal()]);
  scriptClusterModel(llm, { hold: (call) => (heldMarkers.has(markerOf(call) ?? '') ? gate : null) });
});

afterAll(async () => {
  openGate();
  await cluster?.stop();
  await Promise.all([llm?.stop(), web?.stop(), temporal?.close()]);
  if (!('skipped' in postgres)) await postgres.stop();
});

interface Started {
  runId: string;
  workflowId: string;
}

async function createAgent(c: Cluster, base: string, title: string, canvas: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base}/api/v1/agents`, {
    method: 'POST',
    headers: c.auth,
    body: JSON.stringify({ title: `${title} ${randomUUID()}`, dsl: canvas }),
  });
  const body = (await res.json()) as { code: number; data: { id: string } };
  expect(body.code, JSON.stringify(body)).toBe(0);
  return body.data.id;
}

async function startRun(c: Cluster, base: string, agentId: string, query: string): Promise<Started> {
  const res = await fetch(`${base}/api/v1/runs`, { method: 'POST', headers: c.auth, body: JSON.stringify({ agent_id: agentId, query }) });
  const body = (await res.json()) as { task_id: string; workflow_id: string };
  expect(res.status, JSON.stringify(body)).toBe(202);
  return { runId: body.task_id, workflowId: body.workflow_id };
}

async function statusOf(c: Cluster, base: string, runId: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/runs/${runId}`, { headers: c.auth });
  return ((await res.json()) as { status: string }).status;
}

async function waitEnded(c: Cluster, base: string, runIds: string[], timeoutMs = 300_000): Promise<Record<string, string>> {
  const until = Date.now() + timeoutMs;
  const statuses: Record<string, string> = {};
  for (const id of runIds) {
    for (;;) {
      statuses[id] = await statusOf(c, base, id);
      if (['finished', 'failed', 'canceled'].includes(statuses[id]!) || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return statuses;
}

/** The reply a client shows: the streamed `message` texts, in order. */
const replyOf = (f: FollowedRun) =>
  f.events
    .filter((e) => e.event === 'message')
    .map((e) => String((e.data as { content?: string }).content ?? ''))
    .join('');

const namesOf = (c: Cluster, identities: string[]) => [...new Set(identities.map((i) => c.memberOfIdentity(i)?.name ?? `unknown ${i}`))].sort();

describe.skipIf('skipped' in postgres)('two API processes and two workers on one task queue, one PostgreSQL', () => {
  it('spreads runs over both workers, streams from either API, and loses no run to a killed worker', async () => {
    const databaseUrl = (postgres as StartedPostgres).url;
    cluster = await startCluster({
      temporalAddress: inject('temporalAddress'),
      databaseUrl,
      llmUrl: llm.url,
      workers: 2,
      apis: 2,
      extra: { TAVILY_BASE_URL: web.url },
    });
    const c = cluster;
    const [api1, api2] = c.apis as [ClusterMember, ClusterMember];
    const [worker1, worker2] = c.workers as [ClusterMember, ClusterMember];
    const agentId = await createAgent(c, api1.base, 'scale-out research', researchAgentCanvas());

    // 1. Spread: eight runs started through API 1; their histories name both workers.
    const spread = await Promise.all(Array.from({ length: 8 }, (_, i) => startRun(c, api1.base, agentId, `research run-marker-${100 + i}`)));
    const spreadStatus = await waitEnded(
      c,
      api1.base,
      spread.map((r) => r.runId),
    );
    expect(Object.values(spreadStatus)).toEqual(spread.map(() => 'finished'));
    const perRun = await Promise.all(spread.map((r) => workerIdentitiesOf(temporal.client, r.workflowId)));
    const activityWorkers = namesOf(
      c,
      perRun.flatMap((p) => p.activities),
    );
    const taskWorkers = namesOf(
      c,
      perRun.flatMap((p) => p.workflowTasks),
    );
    console.log(`[scale-out] 8 runs: activities ran on ${activityWorkers.join(', ')}; workflow tasks on ${taskWorkers.join(', ')}`);
    for (const [i, p] of perRun.entries()) console.log(`[scale-out]   run ${i + 1}: activities on ${namesOf(c, p.activities).join(', ')}`);
    expect(activityWorkers).toEqual(['worker-1', 'worker-2']);
    expect(taskWorkers.every((n) => n.startsWith('worker-'))).toBe(true);

    // 2. A run started through API 1, streamed by API 2; the client hangs up every 3 events and
    //    resumes with Last-Event-ID, alternating API 2 and API 1.
    const approvalId = await createAgent(c, api1.base, 'scale-out approval', approvalCanvas());
    const paused = await startRun(c, api1.base, approvalId, 'approve run-marker-200');
    let answered = false;
    const followed = await followRun({
      runId: paused.runId,
      bases: () => [api2.base, api1.base],
      headers: { authorization: c.auth.authorization! },
      hangUpAfter: 3,
      timeoutMs: 300_000,
      onEvent: (e) => {
        if (e.event !== 'user_inputs' || answered) return;
        answered = true;
        void fetch(`${api2.base}/api/v1/runs/${paused.runId}/inputs`, {
          method: 'POST',
          headers: c.auth,
          body: JSON.stringify({ inputs: { approver: 'Ada run-marker-200' } }),
        });
      },
    });
    const log = await storedLog(databaseUrl, paused.runId);
    console.log(
      `[scale-out] cross-API stream: ${followed.ids.length} events over ${followed.resumes + 1} connections (${followed.servedBy.filter((b) => b === api2.base).length} to API 2), ` +
        `${gapsOf(followed, log).length} gaps, ${followed.duplicates.length} duplicates`,
    );
    expect(followed.done).toBe(true);
    expect(followed.resumes).toBeGreaterThanOrEqual(2);
    expect(followed.servedBy[0]).toBe(api2.base);
    expect(gapsOf(followed, log)).toEqual([]);
    expect(followed.duplicates).toEqual([]);
    expect(followed.events.at(-1)!.event).toBe('workflow_finished');
    expect(replyOf(followed)).toBe('Approved for run-marker-200 by the manager.');

    // 3. Six runs whose model calls are held open; the worker holding most of them is SIGKILLed.
    const markers = Array.from({ length: 6 }, (_, i) => `run-marker-${300 + i}`);
    for (const m of markers) heldMarkers.add(m);
    const callsBefore = llm.calls.length;
    const doomed = await Promise.all(markers.map((m) => startRun(c, api2.base, agentId, `research ${m}`)));
    const markerOfRun = new Map(doomed.map((r, i) => [r.runId, markers[i]]));
    await llm.waitForCalls(callsBefore + markers.length, 180_000);
    const holders = await Promise.all(
      doomed.map(async (r) => {
        const d = await temporal.client.workflow.getHandle(r.workflowId).describe();
        return (d.raw.pendingActivities ?? []).map((a) => c.memberOfIdentity(a.lastWorkerIdentity ?? '')?.name ?? '');
      }),
    );
    const held = holders.flat();
    const victim = held.filter((n) => n === 'worker-1').length >= held.filter((n) => n === 'worker-2').length ? worker1 : worker2;
    const survivor = victim === worker1 ? worker2 : worker1;
    const inFlightOnVictim = held.filter((n) => n === victim.name).length;
    console.log(`[scale-out] model calls in flight: ${held.join(', ')}; SIGKILL ${victim.name} (${inFlightOnVictim} calls), ${survivor.name} carries on`);
    expect(inFlightOnVictim).toBeGreaterThan(0);
    await c.kill(victim);
    openGate();

    const followers = await Promise.all(
      doomed.map((r) =>
        followRun({ runId: r.runId, bases: () => [api1.base, api2.base], headers: { authorization: c.auth.authorization! }, timeoutMs: 300_000 }),
      ),
    );
    const doomedStatus = await waitEnded(
      c,
      api2.base,
      doomed.map((r) => r.runId),
    );
    expect(Object.values(doomedStatus)).toEqual(doomed.map(() => 'finished'));
    for (const f of followers) {
      const stored = await storedLog(databaseUrl, f.runId);
      expect(f.done).toBe(true);
      expect(gapsOf(f, stored)).toEqual([]);
      expect(f.duplicates).toEqual([]);
      expect(stored.filter((e) => !e.superseded && e.event === 'workflow_finished')).toHaveLength(1);
      expect(replyOf(f)).toBe(`Research answer for ${markerOfRun.get(f.runId)}: two sources agree.`);
    }
    // The killed worker's runs finished on the survivor: their later activities name it.
    const after = await Promise.all(doomed.map((r) => workerIdentitiesOf(temporal.client, r.workflowId)));
    expect(
      namesOf(
        c,
        after.flatMap((p) => p.activities),
      ),
    ).toContain(survivor.name);
    console.log(`[scale-out] after the kill: ${doomed.length}/${doomed.length} runs finished, streams complete`);
  }, 1_200_000);
});
