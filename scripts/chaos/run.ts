/**
 * One chaos run: N runs (half a tool-using agent, half a run paused at a form) started through the
 * API processes of a scaled-out cluster while worker and API processes are SIGKILLed at random
 * moments and started again; the forms are answered through the API, every run is followed over
 * SSE with resumes. The report says what came through: runs finished, model rounds paid twice,
 * events missed or sent twice to a stream.
 */
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import type { Cluster } from '../../test/helpers/cluster';
import { approvalCanvas, isApprovalCall, markerOf, researchAgentCanvas, roundOf } from '../../test/helpers/clusterCanvases';
import { followRun, gapsOf, storedLog, type FollowedRun } from '../../test/helpers/runFollower';
import type { RecordedCall } from '../../test/helpers/scriptedLlm';
import { answerForm, createAgent, liveApis, startRunOnce } from './client';
import { startChaosEnvironment } from './environment';
import { modelRoundCompletions, tallyRounds } from './rounds';

export interface ChaosOptions {
  runs: number;
  kills: number;
  /** Seconds: the whole run (start-up excluded) stops here, finished or not. */
  timeCapS: number;
  workers: number;
  apis: number;
  seed: number;
  temporalAddress?: string;
  say: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  runs: { started: number; finished: number; failed: number; unfinished: number };
  kills: { worker: number; api: number };
  modelCalls: {
    agentPerRun: number;
    approvalPerRun: number;
    baselineAgent: number;
    baselineApproval: number;
    repeatedFinishedRounds: number;
    inFlightAtKill: number;
  };
  streams: { followed: number; resumes: number; withGaps: number; withDuplicates: number; gaps: number; duplicates: number };
  formsAnswered: number;
  wallMs: number;
}

/** mulberry32: a seeded generator, so a chaos run can be repeated. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Tracked {
  marker: string;
  kind: 'agent' | 'approval';
  runId: string;
  follow: Promise<FollowedRun>;
}

/** Starts, follows and answers one run. */
function launch(
  cluster: Cluster,
  agentId: string,
  kind: Tracked['kind'],
  marker: string,
  deadline: number,
  answerDelayMs: number,
  answered: () => void,
  apiOffset = 0,
) {
  return (async (): Promise<Tracked> => {
    const runId = await startRunOnce(cluster, agentId, `${kind === 'agent' ? 'research' : 'approve'} ${marker}`, deadline);
    let asked = false;
    const follow = followRun({
      runId,
      // Runs spread their streams over the API processes, so a killed API drops some of them.
      bases: () => {
        const live = liveApis(cluster);
        return live.map((_, i) => live[(i + apiOffset) % live.length]!);
      },
      headers: { authorization: cluster.auth.authorization ?? '' },
      timeoutMs: deadline - Date.now(),
      onEvent: (e) => {
        if (e.event !== 'user_inputs' || asked) return;
        asked = true;
        // The manager answers a while later, while processes keep dying.
        void sleep(answerDelayMs)
          .then(() => answerForm(cluster, runId, { approver: `Manager ${marker}` }, deadline))
          .then((ok) => ok && answered());
      },
    });
    return { marker, kind, runId, follow };
  })();
}

/** Kills `count` processes at random moments while `busy()` holds, restarting each at once. */
async function chaosMonkey(cluster: Cluster, count: number, next: () => number, busy: () => boolean, say: (l: string) => void) {
  const kills = { worker: 0, api: 0 };
  const restarts: Array<Promise<void>> = [];
  const starting = new Set<string>();
  for (let k = 0; k < count && busy();) {
    await sleep(1000 + next() * 5000);
    if (!busy()) break;
    // Any process that is up, the last worker or API included: runs then wait for the restart,
    // which is what a durable run must survive.
    const candidates = [...cluster.workers, ...cluster.apis].filter((m) => m.app !== null && !starting.has(m.name));
    const victim = candidates[Math.floor(next() * candidates.length)];
    if (!victim) continue;
    k += 1;
    kills[victim.role] += 1;
    say(`  kill ${k}/${count}: SIGKILL ${victim.name} (pid ${victim.app?.proc.pid})`);
    await cluster.kill(victim);
    starting.add(victim.name);
    restarts.push(
      cluster
        .start(victim)
        .then(
          () => undefined,
          (err: unknown) => say(`  ${victim.name} did not come back: ${String(err).slice(0, 300)}`),
        )
        .finally(() => starting.delete(victim.name)),
    );
  }
  await Promise.all(restarts);
  return kills;
}

async function statusesOf(databaseUrl: string, runIds: string[]): Promise<Map<string, { status: string; workflowId: string }>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ id: string; status: string; workflow_id: string }>('SELECT id, status, workflow_id FROM runs WHERE id = ANY($1)', [runIds]);
    return new Map(r.rows.map((row) => [row.id, { status: row.status, workflowId: row.workflow_id }]));
  } finally {
    await client.end();
  }
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const env = await startChaosEnvironment({ temporalAddress: opts.temporalAddress, workers: opts.workers, apis: opts.apis, say: opts.say });
  const connection = await Connection.connect({ address: env.temporalAddress });
  try {
    const { cluster, llm } = env;
    const next = random(opts.seed);
    const setupDeadline = Date.now() + 300_000;
    const agentId = await createAgent(cluster, `chaos research ${opts.seed}-${Date.now()}`, researchAgentCanvas(), setupDeadline);
    const approvalId = await createAgent(cluster, `chaos approval ${opts.seed}-${Date.now()}`, approvalCanvas(), setupDeadline);
    let formsAnswered = 0;
    const answered = () => void (formsAnswered += 1);

    // The crash-free baseline: one run of each, nothing killed.
    opts.say('baseline: one run of each canvas, no kills…');
    const baseline = await Promise.all([
      launch(cluster, agentId, 'agent', 'run-marker-900001', setupDeadline, 0, answered),
      launch(cluster, approvalId, 'approval', 'run-marker-900002', setupDeadline, 0, answered),
    ]);
    await Promise.all(baseline.map((b) => b.follow));
    const callsOf = (marker: string) => llm.calls.filter((c) => markerOf(c) === marker);
    const baselineAgent = callsOf('run-marker-900001').length;
    const baselineApproval = callsOf('run-marker-900002').length;
    formsAnswered = 0; // the report counts the chaos phase's forms

    opts.say(`chaos: ${opts.runs} runs, ${opts.kills} kills, seed ${opts.seed}, cap ${opts.timeCapS} s`);
    const started = Date.now();
    const deadline = started + opts.timeCapS * 1000;
    const launches: Array<Promise<Tracked>> = [];
    let open = opts.runs;
    const monkey = chaosMonkey(cluster, opts.kills, next, () => open > 0 && Date.now() < deadline, opts.say);
    for (let i = 0; i < opts.runs; i++) {
      // The last run starts once every kill has landed and the cluster is back: until then a run
      // is still to come, so the kills never run out of runs to hit.
      if (i === opts.runs - 1) await monkey;
      const kind = i % 2 === 0 ? 'agent' : 'approval';
      const launched = launch(cluster, kind === 'agent' ? agentId : approvalId, kind, `run-marker-${i + 1}`, deadline, next() * 8000, answered, i);
      launches.push(launched);
      void launched.then((t) => t.follow).finally(() => void (open -= 1));
      // Starts spread over the first minute or so, while processes die.
      await sleep(next() * 1500);
    }
    const tracked = await Promise.all(launches);
    const followed = await Promise.all(tracked.map((t) => t.follow));
    const kills = await monkey;
    const wallMs = Date.now() - started;

    const statuses = await statusesOf(
      env.databaseUrl,
      tracked.map((t) => t.runId),
    );
    const client = new Client({ connection });
    let repeatedFinishedRounds = 0;
    let inFlightAtKill = 0;
    const streams = { followed: followed.length, resumes: 0, withGaps: 0, withDuplicates: 0, gaps: 0, duplicates: 0 };
    for (const [i, t] of tracked.entries()) {
      const calls = callsOf(t.marker);
      const completions = await modelRoundCompletions(client, statuses.get(t.runId)?.workflowId ?? '');
      const tally = tallyRounds(calls, (c: RecordedCall) => (isApprovalCall(c) ? 1 : roundOf(c)), completions);
      repeatedFinishedRounds += tally.repeatedFinished;
      inFlightAtKill += tally.repeatedInFlight;
      const f = followed[i]!;
      const gaps = gapsOf(f, await storedLog(env.databaseUrl, t.runId));
      streams.resumes += f.resumes;
      streams.gaps += gaps.length;
      streams.duplicates += f.duplicates.length;
      if (gaps.length > 0 || !f.done) streams.withGaps += 1;
      if (f.duplicates.length > 0) streams.withDuplicates += 1;
    }
    const count = (s: string) => tracked.filter((t) => statuses.get(t.runId)?.status === s).length;
    const perRun = (kind: Tracked['kind']) => {
      const of = tracked.filter((t) => t.kind === kind);
      return of.length === 0 ? 0 : of.reduce((n, t) => n + callsOf(t.marker).length, 0) / of.length;
    };
    return {
      seed: opts.seed,
      runs: { started: tracked.length, finished: count('finished'), failed: count('failed'), unfinished: tracked.length - count('finished') - count('failed') },
      kills,
      modelCalls: { agentPerRun: perRun('agent'), approvalPerRun: perRun('approval'), baselineAgent, baselineApproval, repeatedFinishedRounds, inFlightAtKill },
      streams,
      formsAnswered,
      wallMs,
    };
  } finally {
    await connection.close();
    await env.stop();
  }
}
