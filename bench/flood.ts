/**
 * Fair share under a flood (`npm run bench -- flood`, issue 35), on a deployment's topology: an API
 * (this process: Fastify, the run launcher), two worker processes, PostgreSQL, a Temporal dev
 * server and the scripted model. Tenant A starts 500 runs at once (each three model calls of
 * BENCH_FLOOD_LATENCY_MS) while tenant B asks one streamed question every BENCH_FLOOD_PROBE_EVERY_MS
 * until A's flood is done; B's time to first token is compared with B's on the idle system.
 * Each mode on a fresh dev server and database: the task queue first-in first-out (the dev server's
 * default), Temporal's task-queue fairness on (keyed by tenant: api/services/runLauncher.ts), and
 * fairness with TENANT_MAX_RUNS (api/services/admission.ts). Prints numbers; asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import pg from 'pg';
import { buildApp } from '../api/app';
import { launchRun } from '../api/services/runLauncher';
import { silentLogger } from '../src/io/log';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from '../src/core/runSettings';
import { openStore } from '../src/io/store/store';
import type { Store } from '../src/io/store/contract';
import { WORKFLOW_BUNDLER_OPTIONS, workflowsPath } from '../src/io/temporal/bundle';
import { obtainTemporalCli } from '../src/io/temporal/cli';
import { DEV_SERVER_TUNING, FAIRNESS_TUNING, startDevServer } from '../src/io/temporal/devServer';
import { dsl } from '../test/helpers/canvasKit';
import { startPostgres } from '../test/helpers/postgres';
import { startScriptedLlm, type ScriptedLlm } from '../test/helpers/scriptedLlm';
import { startWorkerProcess } from '../test/helpers/workerProcess';
import { percentile } from './startPhases';
import { firstMessage } from './ttft';
import { chainCanvas, median, root, runBench, table } from './common';

const FLOOD = Number(process.env.BENCH_FLOOD_RUNS ?? 500);
const PROBES = Number(process.env.BENCH_FLOOD_PROBES ?? 7);
/** How often tenant B asks while the flood lasts. */
const PROBE_EVERY_MS = Number(process.env.BENCH_FLOOD_PROBE_EVERY_MS ?? 2000);
const LATENCY_MS = Number(process.env.BENCH_FLOOD_LATENCY_MS ?? 200);
const CAP = Number(process.env.BENCH_FLOOD_CAP ?? 10);
const WORKERS = Number(process.env.BENCH_FLOOD_WORKERS ?? 2);

interface Mode {
  name: string;
  tuning: readonly string[];
  cap?: number;
}

const MODES: Record<string, Mode> = {
  fifo: { name: 'first-in first-out (dev server default)', tuning: DEV_SERVER_TUNING },
  fair: { name: 'fairness on (FAIRNESS_TUNING)', tuning: [...DEV_SERVER_TUNING, ...FAIRNESS_TUNING] },
  'fair+cap': { name: `fairness on, TENANT_MAX_RUNS=${CAP}`, tuning: [...DEV_SERVER_TUNING, ...FAIRNESS_TUNING], cap: CAP },
  'fifo+cap': { name: `first-in first-out, TENANT_MAX_RUNS=${CAP}`, tuning: DEV_SERVER_TUNING, cap: CAP },
};

interface Outcome {
  idle: number[];
  flooded: number[];
  floodMs: number;
  floodFailed: number;
  /** Most of A's model calls open at the model at once. */
  mostAtOnce: number;
}

interface Shared {
  postgresUrl: string;
  bundlePath: string;
  cliPath: string;
  llm: ScriptedLlm;
}

async function freshDatabase(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name}`);
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return url.replace(/\/[^/]+$/, `/${name}`);
}

async function measure(shared: Shared, mode: Mode, key: string): Promise<Outcome> {
  const databaseUrl = await freshDatabase(shared.postgresUrl, `flood_${key.replace(/\W/g, '_')}`);
  // Benches register API keys: any secret will do for a store that lives as long as the bench.
  const store = await openStore({ databaseUrl, apiKeySecret: randomBytes(32).toString('hex') });
  const server = await startDevServer({ cliPath: shared.cliPath, tuning: mode.tuning });
  const connection = await Connection.connect({ address: server.address });
  const taskQueue = 'flood';
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, () =>
      startWorkerProcess({ temporalAddress: server.address, taskQueue, databaseUrl, llmUrl: shared.llm.url, bundlePath: shared.bundlePath }),
    ),
  );
  try {
    const settings: RunSettings = { ...DEFAULT_RUN_SETTINGS, ...(mode.cap ? { tenantMaxRuns: mode.cap } : {}) };
    return await flood(store, new Client({ connection }), taskQueue, settings, shared.llm);
  } finally {
    await Promise.all(workers.map((w) => w.kill()));
    await connection.close();
    await store.close();
    await server.stop();
  }
}

async function flood(store: Store, client: Client, taskQueue: string, settings: RunSettings, llm: ScriptedLlm): Promise<Outcome> {
  await store.tenants.ensure('tenant-a', 'a');
  await store.tenants.ensure('tenant-b', 'b');
  await store.tenants.addApiKey('tenant-b', 'bench-key');
  const flooder = await store.canvases.create({ tenantId: 'tenant-a', title: 'flood', dsl: chainCanvas('activity', 3) });
  const asker = await store.canvases.create({
    tenantId: 'tenant-b',
    title: 'asker',
    dsl: dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'b@OpenAI', sys_prompt: 'answer' }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
    }),
  });
  const app = await buildApp({ store, temporal: client, taskQueue, runSettings: settings, log: silentLogger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    await firstToken(base, asker.id, -1); // warm-up: the workers' first tasks, connections, the canvas's first compile
    const idle: number[] = [];
    for (let i = 0; i < PROBES; i++) idle.push(await firstToken(base, asker.id, i));
    progress(`idle: ${idle.map((x) => x.toFixed(0)).join(' ')} ms; flooding`);

    const callsBefore = llm.calls.length;
    const deps = { store, client, taskQueue, settings };
    const started = performance.now();
    const handles = await Promise.all(
      Array.from({ length: FLOOD }, () =>
        launchRun(deps, { tenantId: 'tenant-a', canvas: flooder, sessionId: null, query: 'q', inputs: null, files: [], userId: 'a', session: null }),
      ),
    );
    progress(`${FLOOD} started in ${(performance.now() - started).toFixed(0)} ms`);
    // A's runs are followed through the store, as the product's readers follow runs (not with 500
    // long polls on Temporal, which would load its frontend as no deployment does).
    let done = false;
    const results = (async () => {
      while ((await store.runIndex.list('tenant-a', { statuses: ['running'], page: 1, pageSize: 1 })).total > 0) await delay(250);
      done = true;
    })();
    const flooded: number[] = [];
    for (let i = 0; !done; i++) {
      const asked = performance.now();
      flooded.push(await firstToken(base, asker.id, 100 + i));
      await Promise.race([results, delay(Math.max(0, PROBE_EVERY_MS - (performance.now() - asked)))]);
    }
    progress(`flooded: ${flooded.map((x) => x.toFixed(0)).join(' ')} ms`);
    await results;
    const floodMs = performance.now() - started;
    const floodCalls = llm.calls.slice(callsBefore).filter((c) => c.body.model === 'bench');
    const finished = (await store.runIndex.list('tenant-a', { statuses: ['finished'], page: 1, pageSize: 1 })).total;
    return { idle, flooded, floodMs, floodFailed: handles.length - finished, mostAtOnce: mostOpen(floodCalls) };
  } finally {
    await app.close();
  }
}

/** Most calls open at once (from their start and end at the model). */
function mostOpen(calls: Array<{ startedAt: number; endedAt: number | null }>): number {
  const edges = calls.flatMap((c): Array<[number, number]> => [
    [c.startedAt, 1],
    [c.endedAt ?? Infinity, -1],
  ]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d));
  return most;
}

/** Request → the first `message` event (the answer's first token) at the client, ms. */
const firstToken = async (base: string, agentId: string, i: number): Promise<number> => (await firstMessage(base, agentId, `question ${i}`)).after;

/** A progress line on stderr (the table goes to stdout). */
const progress = (line: string) => process.stderr.write(`flood: ${line}\n`);

async function main(): Promise<void> {
  const load = os.loadavg()[0]!;
  const keys = (process.env.BENCH_FLOOD_MODES ?? 'fifo,fair,fair+cap').split(',').map((k) => k.trim());
  const unknown = keys.filter((k) => !MODES[k]);
  if (unknown.length) throw new Error(`BENCH_FLOOD_MODES: unknown ${unknown.join(', ')}; known: ${Object.keys(MODES).join(', ')}`);
  const postgres = await startPostgres();
  if ('skipped' in postgres) throw new Error(`this benchmark needs PostgreSQL: ${postgres.skipped}`);
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('no Temporal CLI');
  const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(root), ...WORKFLOW_BUNDLER_OPTIONS, logger: new DefaultLogger('WARN') });
  const bundlePath = path.join(mkdtempSync(path.join(os.tmpdir(), 'flood-bundle-')), 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  const llm = await startScriptedLlm();
  llm.when(() => ({ until: delay(LATENCY_MS), then: { content: 'ok, an answer' } }));
  const rows: string[][] = [];
  try {
    for (const key of keys) {
      const mode = MODES[key]!;
      progress(mode.name);
      const o = await measure({ postgresUrl: postgres.url, bundlePath, cliPath: cli.path, llm }, mode, key);
      const idle = median(o.idle);
      const flooded = median(o.flooded);
      const worst = Math.max(...o.flooded);
      rows.push([
        mode.name,
        idle.toFixed(0),
        `${flooded.toFixed(0)} (${(flooded / idle).toFixed(2)}×)`,
        percentile(o.flooded, 90).toFixed(0),
        `${worst.toFixed(0)} (${(worst / idle).toFixed(2)}×)`,
        String(o.flooded.length),
        `${(o.floodMs / 1000).toFixed(1)} s`,
        String(o.mostAtOnce),
        String(o.floodFailed),
      ]);
    }
  } finally {
    await llm.stop();
    await postgres.stop();
  }
  table(
    `Tenant B's time to first token while tenant A floods ${FLOOD} runs (3 model calls of ${LATENCY_MS} ms each; ${WORKERS} worker processes, PostgreSQL; B idle: median of ${PROBES}; B flooded: a question every ${PROBE_EVERY_MS} ms until the flood is done; ms; load ${load.toFixed(1)} at start)`,
    ['mode', 'B idle', 'B flooded median', 'p90', 'worst', 'questions', "A's flood done", "A's calls at once", 'A failed'],
    rows,
  );
}

runBench(main);
