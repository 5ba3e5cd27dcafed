/**
 * The hostile run's three stalled-attempt scenarios (issue 38), each on its own stack on loopback:
 * a Temporal dev server, a PostgreSQL that can be stopped, the scripted model, a worker (two where
 * one takes over) and an API process, runs of an LLM → Message canvas followed live over SSE.
 *
 * - partition: worker 1 reaches Temporal only through a relay, which is cut for the fault's length
 *   mid-stream while worker 1 still reaches PostgreSQL and the model; worker 2 takes the retries.
 * - freeze: worker 1 is stopped with SIGSTOP mid-stream past its heartbeat timeout, worker 2 takes
 *   the retries, then worker 1 is let go (SIGCONT) and its stale attempts wake up.
 * - outage: Temporal and PostgreSQL are both stopped mid-stream and started again on the same data.
 *
 * The report says, per run, whether the live text, a later replay and the stored result are all
 * the model's answer, and how many model calls were made again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { startDevServer, type DevServer } from '../../src/io/temporal/devServer';
import { startCluster, type Cluster, type ClusterMember } from '../../test/helpers/cluster';
import { dsl } from '../../test/helpers/canvasKit';
import { followRun, type FollowedRun } from '../../test/helpers/runFollower';
import { startScriptedLlm, type RecordedCall } from '../../test/helpers/scriptedLlm';
import { startRestartablePostgres } from '../../test/outage/restartablePostgres';
import { callApi, createAgent } from '../chaos/client';
import { modelRoundCompletions, tallyRounds } from '../chaos/rounds';
import { startPartitionRelay, type PartitionRelay } from './partitionRelay';
import { callsTrace, liveTrace, storedTrace } from './trace';
import { verdictOf, type ScenarioReport } from './verdict';

export const SCENARIOS = ['partition', 'freeze', 'outage'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface ScenarioOptions {
  scenario: ScenarioName;
  runs: number;
  faultS: number;
  heartbeatTimeoutMs: number;
  /** Words in the model's answer, streamed one per `tokenDelayMs`. */
  words: number;
  tokenDelayMs: number;
  /** A running Temporal server for partition and freeze (the tests' dev server); outage starts its own. */
  temporalAddress?: string;
  say: (line: string) => void;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function answerOf(words: number): string {
  return Array.from({ length: words }, (_, i) => `tok${i}`).join(' ');
}

/** Temporal for the scenario: the given server, or a dev server of our own (on a file when it must restart). */
interface ScenarioTemporal {
  address: string;
  /** Stops our own server (the outage), and starts it again on the same file and port. */
  down?: () => Promise<void>;
  up?: () => Promise<void>;
  stop(): Promise<void>;
}

async function temporalFor(opts: ScenarioOptions, dir: string): Promise<ScenarioTemporal> {
  if (opts.temporalAddress && opts.scenario !== 'outage') return { address: opts.temporalAddress, stop: async () => {} };
  const cli = await obtainTemporalCli({ projectRoot: root, log: () => {} });
  if (!cli) throw new Error('no Temporal CLI: set TEMPORAL_CLI_PATH or put `temporal` on PATH');
  const dbFile = path.join(dir, 'temporal.db');
  let server: DevServer = await startDevServer({ cliPath: cli.path, dbFile });
  const port = Number(server.address.split(':').at(-1));
  return {
    address: server.address,
    down: () => server.stop(),
    up: async () => {
      server = await startDevServer({ cliPath: cli.path, dbFile, port });
    },
    stop: () => server.stop(),
  };
}

/** How many of the runs' model streams each worker is running now (by the identity Temporal recorded). */
async function streamHolders(client: Client, cluster: Cluster, runIds: string[]): Promise<Map<ClusterMember, number>> {
  const held = new Map<ClusterMember, number>();
  for (const runId of runIds) {
    const run = await callApi(cluster, `/api/v1/runs/${runId}`, { method: 'GET' }, (s) => s === 200, Date.now() + 60_000);
    const described = await client.workflow.getHandle(String(run.body.workflow_id)).describe();
    const stream = described.raw.pendingActivities?.find((p) => p.activityType?.name === 'llmChat' && p.lastWorkerIdentity);
    const member = stream ? cluster.memberOfIdentity(stream.lastWorkerIdentity!) : undefined;
    if (member) held.set(member, (held.get(member) ?? 0) + 1);
  }
  return held;
}

export async function runScenario(opts: ScenarioOptions): Promise<ScenarioReport> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `agent-canvas-hostile-${opts.scenario}-`));
  const stops: Array<() => Promise<unknown> | void> = [() => rmSync(dir, { recursive: true, force: true })];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  };
  try {
    const temporal = await temporalFor(opts, dir);
    stops.push(() => temporal.stop());
    const pg = await startRestartablePostgres();
    if (!pg) throw new Error('the scenarios need PostgreSQL binaries (apt-get install postgresql)');
    stops.push(() => pg.destroy());
    const llm = await startScriptedLlm();
    stops.push(() => llm.stop());
    const expected = answerOf(opts.words);
    const nonce = `hostile-${opts.scenario}-${Date.now()}`;
    llm.whenPromptIncludes(nonce, { content: expected, delayMs: opts.tokenDelayMs });

    // Partition: each worker reaches Temporal through a relay of its own, and the one holding the
    // most streams is cut off. Its PostgreSQL and model connections are direct.
    const twoWorkers = opts.scenario !== 'outage';
    const relays = new Map<string, PartitionRelay>();
    if (opts.scenario === 'partition') {
      for (const name of ['worker-1', 'worker-2']) relays.set(name, await startPartitionRelay(temporal.address));
      stops.push(() => relays.forEach((r) => r.close()));
    }
    opts.say(
      `${opts.scenario}: Temporal ${temporal.address}, PostgreSQL ${new URL(pg.url).host}; starting ${twoWorkers ? 'two workers' : 'a worker'} and an API…`,
    );
    const cluster: Cluster = await startCluster({
      temporalAddress: temporal.address,
      databaseUrl: pg.url,
      llmUrl: llm.url,
      workers: twoWorkers ? 2 : 1,
      apis: 1,
      extra: { ACTIVITY_HEARTBEAT_TIMEOUT_MS: String(opts.heartbeatTimeoutMs) },
      memberExtra: Object.fromEntries([...relays].map(([name, r]) => [name, { TEMPORAL_ADDRESS: r.address }])),
    });
    stops.push(() => cluster.stop());
    const api = cluster.apis[0]!;
    const bases = () => [api.base];
    const headers = { authorization: cluster.auth.authorization ?? '' };
    const setup = Date.now() + 300_000;
    const agentId = await createAgent(
      cluster,
      nonce,
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: nonce, max_retries: 2, delay_after_error: 1 }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
      setup,
    );

    const connection = await Connection.connect({ address: temporal.address });
    stops.push(() => connection.close());
    const client = new Client({ connection });
    const started = Date.now();
    const queries = Array.from({ length: opts.runs }, (_, i) => `${nonce} run ${i}`);
    const callsOf = (q: string): RecordedCall[] => llm.calls.filter((c) => c.body.messages.some((m) => m.content === q));
    const runIds: string[] = [];
    const follows: Array<Promise<FollowedRun>> = [];
    for (const query of queries) {
      const res = await callApi(cluster, '/api/v1/runs', { method: 'POST', body: JSON.stringify({ agent_id: agentId, query }) }, (s) => s === 202, setup);
      const runId = String(res.body.task_id);
      runIds.push(runId);
      follows.push(followRun({ runId, bases, headers, timeoutMs: 900_000 }));
    }
    while (queries.some((q) => callsOf(q).length === 0)) await sleep(100);
    // Some tokens of every stream are in the log before anything goes wrong.
    await sleep(Math.max(1_000, opts.tokenDelayMs * 5));

    const inFlight = () => queries.filter((q) => callsOf(q).at(-1)?.endedAt === null).length;
    let inFlightAtFault = 0;
    let faulted = 0;
    const faultStart = async () => {
      inFlightAtFault = inFlight();
      opts.say(`${opts.scenario}: fault begins at +${((Date.now() - started) / 1000).toFixed(1)} s with ${inFlightAtFault}/${opts.runs} streams in flight`);
    };
    if (opts.scenario === 'partition' || opts.scenario === 'freeze') {
      const holders = await streamHolders(client, cluster, runIds);
      const victim = [...cluster.workers].sort((a, b) => (holders.get(b) ?? 0) - (holders.get(a) ?? 0))[0]!;
      await faultStart();
      faulted = holders.get(victim) ?? 0;
      opts.say(`${opts.scenario}: ${victim.name} holds ${faulted} of the streams; the other worker takes over`);
      if (opts.scenario === 'partition') relays.get(victim.name)!.cut();
      else victim.app!.proc.kill('SIGSTOP');
      await sleep(opts.faultS * 1000);
      if (opts.scenario === 'partition') relays.get(victim.name)!.heal();
      else victim.app?.proc.kill('SIGCONT');
    } else {
      await faultStart();
      faulted = inFlightAtFault;
      const down = Date.now();
      await Promise.all([temporal.down!(), pg.stop()]);
      await sleep(Math.max(0, opts.faultS * 1000 - (Date.now() - down)));
      await Promise.all([temporal.up!(), pg.start()]);
      opts.say(`${opts.scenario}: both back after ${((Date.now() - down) / 1000).toFixed(1)} s`);
    }
    opts.say(`${opts.scenario}: fault over; waiting for the runs…`);

    const lives = await Promise.all(follows);
    const wallMs = Date.now() - started;
    const verdicts = [];
    for (const [i, runId] of runIds.entries()) {
      const run = await callApi(cluster, `/api/v1/runs/${runId}`, { method: 'GET' }, (s) => s === 200, Date.now() + 120_000);
      const replay = await followRun({ runId, bases, headers, timeoutMs: 120_000 });
      const calls = callsOf(queries[i]!);
      const completions = await modelRoundCompletions(client, String(run.body.workflow_id));
      const verdict = verdictOf({
        runId,
        status: String(run.body.status),
        expected,
        live: lives[i]!,
        replay,
        result: String((run.body.result as { content?: unknown } | null)?.content ?? ''),
        modelCalls: calls.length,
        rounds: tallyRounds(calls, () => 1, completions),
      });
      verdicts.push(verdict);
      if (!verdict.exact)
        opts.say(
          `${opts.scenario}: run ${runId} not exact\n  live:   ${liveTrace(lives[i]!.events)}\n  stored: ${await storedTrace(pg.url, runId)}\n  calls:  ${callsTrace(calls, started)}`,
        );
    }
    return { scenario: opts.scenario, faultS: opts.faultS, heartbeatTimeoutMs: opts.heartbeatTimeoutMs, inFlightAtFault, faulted, verdicts, wallMs };
  } finally {
    await stopAll();
  }
}
