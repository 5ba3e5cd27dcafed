/**
 * PostgreSQL stopped for OUTAGE_S (15 s; POSTGRES_OUTAGE_S=30 for the figure in
 * docs/BENCHMARKS.md) in the middle of runs (`pg_ctl stop -m fast`, then started again on the
 * same port and data), under a worker process and an API process:
 * - the model calls streaming into the log wait for the store and go on (no run fails, no model
 *   call is made again), event writes retry with backoff;
 * - the API answers 503 with a message that says the database is unavailable (not 500), on our
 *   routes and RAGFlow's, with Retry-After;
 * - the stored log holds every event exactly once (the six alike runs have the same log, event for
 *   event, whatever moment the outage hit each; the answer's text is there exactly once), and clients following over SSE miss nothing and get nothing twice;
 * - every run finishes once the server is back.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster';
import { AGENT_ROUNDS, markerOf, researchAgentCanvas, roundOf, scriptClusterModel } from '../helpers/clusterCanvases';
import { followRun, gapsOf, storedLog, type FollowedRun } from '../helpers/runFollower';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { startWebSearchServer, type WebSearchServer } from '../helpers/webSearchServer';
import { startRestartablePostgres, type RestartablePostgres } from './restartablePostgres';

/** Past the store wait's backoff cap (5 s, src/io/store/pgDb.ts) several times over; the wait's own bound is 120 s. */
const OUTAGE_S = Number(process.env.POSTGRES_OUTAGE_S ?? 15);
const OUTAGE_MS = OUTAGE_S * 1000;
const RUNS = 6;

const postgres = await startRestartablePostgres();
if (postgres === null) console.warn('[outage] skipped: PostgreSQL binaries not found (apt-get install postgresql)');
let llm: ScriptedLlm;
let web: WebSearchServer;
let cluster: Cluster | null = null;
let releaseAnswers: () => void = () => {};
const answersReleased = new Promise<void>((resolve) => (releaseAnswers = resolve));

beforeAll(async () => {
  [llm, web] = await Promise.all([startScriptedLlm(), startWebSearchServer()]);
  // Round 2 (the streamed answer) is held until the database is down, then streams slowly into it.
  scriptClusterModel(llm, { hold: (call) => (roundOf(call) === AGENT_ROUNDS ? answersReleased : null), delayMs: 400 });
});

afterAll(async () => {
  releaseAnswers();
  await cluster?.stop();
  await Promise.all([llm?.stop(), web?.stop()]);
  await postgres?.destroy();
});

interface Probe {
  status: number;
  body: Record<string, unknown>;
  retryAfter: string | null;
}

async function probe(url: string, init: RequestInit): Promise<Probe | null> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown>, retryAfter: res.headers.get('retry-after') };
  } catch {
    return null; // no answer at all (counted apart)
  }
}

describe.skipIf(postgres === null)(`PostgreSQL down for ${OUTAGE_S} s mid-run`, () => {
  it('answers 503 meanwhile, loses and duplicates no event, and finishes every run after it returns', async () => {
    const pg = postgres as RestartablePostgres;
    cluster = await startCluster({
      temporalAddress: inject('temporalAddress'),
      databaseUrl: pg.url,
      llmUrl: llm.url,
      workers: 1,
      apis: 1,
      // info: the worker logs each activity that waits for the store (counted below).
      extra: { TAVILY_BASE_URL: web.url, LOG_LEVEL: 'info' },
    });
    const c = cluster;
    const api = c.apis[0]!;
    const created = (await (
      await fetch(`${api.base}/api/v1/agents`, {
        method: 'POST',
        headers: c.auth,
        body: JSON.stringify({ title: `outage ${randomUUID()}`, dsl: researchAgentCanvas() }),
      })
    ).json()) as { data: { id: string } };
    const agentId = created.data.id;
    const runs = await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => {
        const res = await fetch(`${api.base}/api/v1/runs`, {
          method: 'POST',
          headers: c.auth,
          body: JSON.stringify({ agent_id: agentId, query: `research run-marker-${i}` }),
        });
        expect(res.status).toBe(202);
        return ((await res.json()) as { task_id: string }).task_id;
      }),
    );
    const followers: Array<Promise<FollowedRun>> = runs.map((runId) =>
      followRun({ runId, bases: () => [api.base], headers: { authorization: c.auth.authorization! }, timeoutMs: 600_000 }),
    );
    // Every run is in round 2: its answer is about to stream.
    const inRound2 = () => new Set(llm.calls.filter((call) => roundOf(call) === AGENT_ROUNDS).map(markerOf)).size;
    for (const until = Date.now() + 300_000; inRound2() < RUNS && Date.now() < until;) await new Promise((r) => setTimeout(r, 250));
    expect(inRound2()).toBe(RUNS);
    const modelCallsBefore = llm.calls.length;

    await pg.stop();
    const downAt = Date.now();
    releaseAnswers();
    // While it is down: the API, polled once a second on a route of ours, a RAGFlow route and a start.
    const probes: Probe[] = [];
    let unanswered = 0;
    while (Date.now() - downAt < OUTAGE_MS) {
      const round = await Promise.all([
        probe(`${api.base}/api/v1/runs/${runs[0]}`, { headers: c.auth }),
        probe(`${api.base}/api/v1/agents?page=1&page_size=10`, { headers: c.auth }),
        probe(`${api.base}/api/v1/runs`, { method: 'POST', headers: c.auth, body: JSON.stringify({ agent_id: agentId, query: 'during the outage' }) }),
      ]);
      for (const p of round) if (p) probes.push(p);
      unanswered += round.filter((p) => p === null).length;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await pg.start();
    const downtimeMs = Date.now() - downAt;

    const followed = await Promise.all(followers);
    const statuses = await Promise.all(
      runs.map(async (id) => ((await (await fetch(`${api.base}/api/v1/runs/${id}`, { headers: c.auth })).json()) as { status: string }).status),
    );
    const served503 = probes.filter((p) => p.status === 503);
    const other = probes.filter((p) => p.status !== 503);
    const workerLog = c.workers[0]!.app!.output();
    const waits = workerLog.split('\n').filter((l) => l.includes('PostgreSQL unavailable in activity')).length;
    // Every run's last model call had arrived (held) before the stop: any call since is one made again.
    const retriedModelCalls = llm.calls.length - modelCallsBefore;
    const logs = await Promise.all(runs.map((id) => storedLog(pg.url, id)));
    const gaps = followed.reduce((n, f, i) => n + gapsOf(f, logs[i]!).length, 0);
    const duplicates = followed.reduce((n, f) => n + f.duplicates.length, 0);
    console.log(
      `[outage] PostgreSQL down ${(downtimeMs / 1000).toFixed(1)} s with ${RUNS} runs in flight (answers streaming): ` +
        `${statuses.filter((s) => s === 'finished').length}/${RUNS} finished after it returned; ` +
        `API: ${served503.length} × 503, ${other.length} other statuses (${[...new Set(other.map((p) => p.status))].join(', ') || 'none'}), ${unanswered} unanswered; ` +
        `worker: ${waits} activities waited for the store; model calls made again: ${retriedModelCalls}; ` +
        `SSE: ${followed.reduce((n, f) => n + f.resumes, 0)} resumes, ${gaps} gaps, ${duplicates} duplicates`,
    );

    // The API said what was wrong, with 503, on every route.
    expect(served503.length).toBeGreaterThan(0);
    expect(other).toEqual([]);
    for (const p of served503) {
      expect(String(p.body.message)).toContain('database (PostgreSQL) is unavailable');
      expect(p.retryAfter).toBe('5');
    }
    expect(served503.some((p) => p.body.code === 'STORE_UNAVAILABLE')).toBe(true); // our routes
    expect(served503.some((p) => p.body.code === 100)).toBe(true); // RAGFlow's envelope

    // Every run finished, once, with its whole answer once; the model was not asked again.
    expect(statuses).toEqual(runs.map(() => 'finished'));
    expect(retriedModelCalls).toBe(0);
    expect(waits).toBeGreaterThan(0);
    for (const [i, log] of logs.entries()) {
      const live = log.filter((e) => !e.superseded);
      // The runs are alike but met the outage at different moments: an event lost or written twice
      // in one would set its log apart from the others'.
      expect(
        live.map((e) => `${e.id} ${e.event}`),
        `run ${i}'s log against run 0's`,
      ).toEqual(logs[0]!.filter((e) => !e.superseded).map((e) => `${e.id} ${e.event}`));
      expect(live.filter((e) => e.event === 'workflow_finished')).toHaveLength(1);
      const text = followed[i]!.events.filter((e) => e.event === 'message')
        .map((e) => String((e.data as { content?: string }).content ?? ''))
        .join('');
      expect(text.split(`Research answer for run-marker-${i}: two sources agree.`)).toHaveLength(2);
    }
    // Clients following over SSE got every event once.
    expect(followed.every((f) => f.done)).toBe(true);
    expect(gaps).toBe(0);
    expect(duplicates).toBe(0);
  }, 1_200_000);
});
