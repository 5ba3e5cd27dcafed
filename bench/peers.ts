/**
 * Peers benchmark (`npm run bench -- peers [--quick] [--peers=a,b] [--shapes=chain,map,pause,crash]`):
 * the same work on agent-canvas and on the libraries a user would pick instead (LangGraph.js on
 * PostgreSQL and SQLite, Mastra on LibSQL, DBOS on PostgreSQL), each peer in a child process of its
 * own (bench/peers/child.ts), every model call to the one scripted model served here. Shapes: (a)
 * Begin → 5 model nodes → answer; (b) a map of a model call per item at concurrency 1 and 32;
 * (c) runs paused for a human, then resumed; (d) a process SIGKILLed mid-run, then restarted.
 * Prints a markdown table (figures with their ratio to agent-canvas on PGlite); asserts nothing.
 * `--quick` is a smoke run with small sizes (test/bench/peers.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import pg from 'pg';
import { obtainTemporalCli } from '../src/io/temporal/cli';
import { WORKFLOW_BUNDLER_OPTIONS, workflowsPath } from '../src/io/temporal/bundle';
import { startDevServer } from '../src/io/temporal/devServer';
import { startPostgres } from '../test/helpers/postgres';
import { startScriptedLlm } from '../test/helpers/scriptedLlm';
import { root, runBench } from './common';
import type { PeerContext } from './peers/contract';
import type { Job } from './peers/child';
import { PEERS, type PeerName } from './peers/registry';
import { chainFigures, markdownTable, type Cell, type ChainResult, type CrashResult, type MapResult, type PauseResult, type Row } from './peers/report';

const flag = (name: string) =>
  process.argv
    .find((a) => a.startsWith(`--${name}=`))
    ?.split('=')[1]
    ?.split(',');
const QUICK = process.argv.includes('--quick');
const SIZES = QUICK
  ? { repeats: 2, runs: 10, lanes: 5, items: 10, pauses: 10, jobTimeoutMs: 240_000 }
  : { repeats: 15, runs: 200, lanes: 20, items: 1000, pauses: 1000, jobTimeoutMs: 1_800_000 };
const CONCURRENCY = [1, 32];
/** The crashed chain's length, each of its model calls' answer delay, and the call during which its process is killed. */
const CRASH = { nodes: 5, delayMs: 300, killDuringCall: 3, recoverTimeoutMs: 180_000 };
const SHAPES = flag('shapes') ?? ['chain', 'map', 'pause', 'crash'];
const peerNames = (Object.keys(PEERS) as PeerName[]).filter((p) => !flag('peers') || flag('peers')!.some((f) => p.toLowerCase().includes(f.toLowerCase())));
const now = () => performance.timeOrigin + performance.now();

/** Runs a child for `job`; resolves with its RESULT, or rejects with the tail of its output. */
function runChild(job: Job, opts: { onLine?: (line: string, kill: () => void) => void; timeoutMs?: number } = {}): Promise<unknown> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/peers/child.ts'], {
    cwd: root,
    env: { ...process.env, PEER_JOB: JSON.stringify(job) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let killed = false;
  const kill = () => {
    killed = true;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(kill, opts.timeoutMs ?? SIZES.jobTimeoutMs);
  child.stdout.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line) opts.onLine?.(line, kill);
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const result = /^RESULT (.+)$/m.exec(out);
      if (code === 0 && result) resolve(JSON.parse(result[1]!));
      else if (killed) resolve('killed');
      else {
        const lines = out.trim().split('\n');
        process.stderr.write(`peers: ${job.peer} ${job.shape} exited with ${signal ?? code}:\n${lines.slice(-15).join('\n')}\n`);
        reject(new Error(`${job.shape} exited with ${signal ?? code}: ${lines.find((l) => /Error/.test(l)) ?? lines.at(-1)}`));
      }
    }),
  );
}

async function createDatabases(url: string, names: string[]): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const urls: Record<string, string> = {};
  for (const name of names) {
    await client.query(`DROP DATABASE IF EXISTS ${name}`);
    await client.query(`CREATE DATABASE ${name}`);
    urls[name] = url.replace(/\/[^/]+$/, `/${name}`);
  }
  await client.end();
  return urls;
}

const reason = (err: unknown) => `failed: ${(err instanceof Error ? err.message : String(err)).slice(0, 160)}`;

async function main(): Promise<void> {
  const load = [os.loadavg()[0]!];
  const llm = await startScriptedLlm();
  /** Per run (the id in its prompt): when its first model call arrived, and how many calls it made. */
  const firstCallAt = new Map<string, number>();
  const callsOf = new Map<string, number>();
  const onCall = new Set<() => void>();
  llm.when((call) => {
    const text = call.body.messages.map((m) => String(m.content)).join('\n');
    const step = /(\S+) step (\d+)/.exec(text);
    if (step) {
      const runId = step[1]!;
      callsOf.set(runId, (callsOf.get(runId) ?? 0) + 1);
      if (step[2] === '0' && !firstCallAt.has(runId)) firstCallAt.set(runId, now());
      for (const f of onCall) f();
      if (runId.startsWith('crash')) return { until: new Promise((r) => setTimeout(r, CRASH.delayMs)), then: { content: 'ok' } };
    }
    return { content: 'ok' };
  });
  const postgres = await startPostgres();
  if ('skipped' in postgres) throw new Error(`this benchmark needs PostgreSQL: ${postgres.skipped}`);
  const databases = await createDatabases(postgres.url, ['peers_langgraph', 'peers_dbos', 'peers_agent_canvas']);
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('no Temporal CLI');
  const temporal = await startDevServer({ cliPath: cli.path });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-peers-'));
  // agent-canvas's workers load one workflow bundle built here (WORKER_WORKFLOW_BUNDLE, as a
  // deployment that ships a built bundle runs), so that no child spends its time in webpack.
  if (peerNames.some((p) => p.startsWith('agent-canvas'))) {
    const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(root), ...WORKFLOW_BUNDLER_OPTIONS, logger: new DefaultLogger('ERROR') });
    process.env.WORKER_WORKFLOW_BUNDLE = path.join(scratch, 'workflow-bundle.js');
    writeFileSync(process.env.WORKER_WORKFLOW_BUNDLE, bundle.code);
  }
  const contextOf = (peer: PeerName, tag: string): PeerContext => ({
    modelUrl: llm.url,
    databaseUrl: peer.startsWith('LangGraph') ? databases.peers_langgraph! : peer.startsWith('DBOS') ? databases.peers_dbos! : databases.peers_agent_canvas!,
    dataDir: mkdtempSync(path.join(scratch, `${tag}-`)),
    temporalAddress: temporal.address,
    taskQueue: `peers-${tag}-${Date.now()}`,
  });

  const cells = new Map<string, Cell[]>();
  const put = (label: string, i: number, cell: Cell) => {
    if (!cells.has(label))
      cells.set(
        label,
        Array.from({ length: peerNames.length }, () => '—'),
      );
    cells.get(label)![i] = cell;
  };
  const labels = {
    perNode: '(a) overhead per model node, ms',
    fixed: '(a) fixed cost per run, ms',
    firstCall: '(a) start → first model call, ms',
    rps: `(a) runs/s, ${SIZES.lanes} clients`,
    map: (c: number) => `(b) ${SIZES.items}-item map, concurrency ${c}, s`,
    memory: `(c) memory per paused run (${SIZES.pauses} paused), KiB`,
    resume: `(c) resume ${SIZES.pauses} paused runs, s`,
    finished: '(d) killed mid-run: finished after restart',
    repeated: '(d) model calls repeated',
    recovery: '(d) restart → run finished, s',
    boot: '(d) of which the new process starting, s',
  };
  for (const [i, peer] of peerNames.entries()) {
    const cannot = (await PEERS[peer]()).cannot ?? {};
    const tag = peer.replace(/\W+/g, '-').toLowerCase();
    process.stderr.write(`peers: ${peer}\n`);
    if (SHAPES.includes('chain')) {
      try {
        const r = (await runChild({
          peer,
          ctx: contextOf(peer, tag),
          shape: 'chain',
          repeats: SIZES.repeats,
          runs: SIZES.runs,
          lanes: SIZES.lanes,
        })) as ChainResult;
        const f = chainFigures(r, (id) => firstCallAt.get(id));
        put(labels.perNode, i, f.perNode);
        put(labels.fixed, i, f.fixed);
        put(labels.firstCall, i, f.firstCall);
        put(labels.rps, i, f.runsPerSecond);
      } catch (err) {
        for (const l of [labels.perNode, labels.fixed, labels.firstCall, labels.rps]) put(l, i, reason(err));
      }
    }
    if (SHAPES.includes('map')) {
      if (cannot.map) for (const c of CONCURRENCY) put(labels.map(c), i, `cannot: ${cannot.map}`);
      else
        try {
          const r = (await runChild({ peer, ctx: contextOf(peer, tag), shape: 'map', items: SIZES.items, concurrency: CONCURRENCY })) as MapResult;
          for (const c of CONCURRENCY) put(labels.map(c), i, typeof r.wallMs[c] === 'number' ? r.wallMs[c] / 1000 : r.wallMs[c]!);
        } catch (err) {
          for (const c of CONCURRENCY) put(labels.map(c), i, reason(err));
        }
    }
    if (SHAPES.includes('pause')) {
      try {
        const r = (await runChild({ peer, ctx: contextOf(peer, tag), shape: 'pause', count: SIZES.pauses })) as PauseResult;
        put(labels.memory, i, ((r.rssAfterMiB - r.rssBeforeMiB) * 1024) / SIZES.pauses);
        put(labels.resume, i, r.resumeMs / 1000);
      } catch (err) {
        for (const l of [labels.memory, labels.resume]) put(l, i, reason(err));
      }
    }
    if (SHAPES.includes('crash')) {
      if (cannot.crash) for (const l of [labels.finished, labels.repeated, labels.recovery, labels.boot]) put(l, i, `cannot: ${cannot.crash}`);
      else
        try {
          const r = await crashAndRecover(peer, contextOf(peer, tag), tag, callsOf, onCall);
          put(labels.finished, i, r.finished ? 'yes' : 'no');
          put(labels.repeated, i, r.finished ? r.repeated : '—');
          put(labels.recovery, i, r.finished ? r.recoveryMs / 1000 : '—');
          put(labels.boot, i, r.finished ? r.openMs / 1000 : '—');
        } catch (err) {
          for (const l of [labels.finished, labels.repeated, labels.recovery, labels.boot]) put(l, i, reason(err));
        }
    }
  }
  load.push(os.loadavg()[0]!);
  const rows: Row[] = [...cells].map(([label, row]) => ({
    label,
    digits: label.includes('calls repeated') ? 0 : label.includes('KiB') ? 0 : label.includes('ms') ? 2 : 1,
    cells: row,
  }));
  process.stdout.write(
    `\n### Peers${QUICK ? ' (--quick: small sizes, a smoke run)' : ''}\n\n` +
      `${os.cpus().length} cores, node ${process.version}, load ${load.map((l) => l.toFixed(1)).join(' → ')}; scripted model with zero latency ` +
      `(crash runs: ${CRASH.delayMs} ms a call); medians of ${SIZES.repeats} repeats; (ratio) = figure ÷ ${peerNames[0]}'s.\n\n` +
      `${markdownTable(peerNames, rows)}\n`,
  );
  await temporal.stop();
  await postgres.stop();
  await llm.stop();
  rmSync(scratch, { recursive: true, force: true });
}

/** (d): start a chain, SIGKILL its process during a model call, start a new process and time the run to its end. */
async function crashAndRecover(peer: PeerName, ctx: PeerContext, tag: string, callsOf: Map<string, number>, onCall: Set<() => void>): Promise<CrashResult> {
  const runId = `crash-${tag}-${Date.now()}`;
  let started = false;
  let kill = () => {};
  const maybeKill = () => {
    if (started && (callsOf.get(runId) ?? 0) >= CRASH.killDuringCall) kill();
  };
  onCall.add(maybeKill);
  await runChild(
    { peer, ctx, shape: 'crash-start', runId, nodes: CRASH.nodes },
    {
      onLine: (line, k) => {
        kill = k;
        if (line === 'STARTED') started = true;
        maybeKill();
      },
      timeoutMs: 120_000,
    },
  );
  onCall.delete(maybeKill);
  if ((callsOf.get(runId) ?? 0) < CRASH.killDuringCall) throw new Error(`the run made ${callsOf.get(runId) ?? 0} calls before its process ended`);
  const t = now();
  const result = await runChild({ peer, ctx, shape: 'crash-recover', runId, nodes: CRASH.nodes }, { timeoutMs: CRASH.recoverTimeoutMs });
  if (result === 'killed') return { finished: false, repeated: 0, recoveryMs: 0, openMs: 0 };
  return { finished: true, repeated: (callsOf.get(runId) ?? 0) - CRASH.nodes, recoveryMs: now() - t, openMs: (result as { openMs: number }).openMs };
}

runBench(main);
