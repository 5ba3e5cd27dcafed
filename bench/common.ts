/**
 * What every benchmark needs: the scripted model, an embedded store, a Temporal dev server (the
 * project's CLI, eager activities on, as `npm start` runs it) and a worker with the real
 * activities. Benchmarks print numbers and assert nothing.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ledgerSinks } from '../activities/reuseSink';
import { launchRun, type LaunchDeps } from '../api/services/runLauncher';
import { silentLogger } from '../src/io/log';
import { llmSettingsFromEnv } from '../src/io/llm/providers';
import { prepareVectorColumn } from '../src/io/store/chunks';
import { openDb } from '../src/io/store/db';
import { migrate } from '../src/io/store/migrations';
import { createStore } from '../src/io/store/store';
import type { CanvasRecord, Db, Store } from '../src/io/store/contract';
import { WORKER_TUNING, workerSlots } from '../server/boot/worker';
import { obtainTemporalCli } from '../src/io/temporal/cli';
import { WORKFLOW_BUNDLER_OPTIONS, workflowsPath } from '../src/io/temporal/bundle';
import { startDevServer } from '../src/io/temporal/devServer';
import { dsl } from '../test/helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../test/helpers/scriptedLlm';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPEATS = Number(process.env.BENCH_REPEATS ?? 15);
/** Starts runs (ours and the floor's) with eager workflow start: the client shares its worker's NativeConnection. */
export const EAGER_START = process.env.BENCH_EAGER_START === '1';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export interface BenchEnvironment {
  llm: ScriptedLlm;
  store: Store;
  client: Client;
  worker: Worker;
  activities: ReturnType<typeof createActivities>;
  taskQueue: string;
  /** The dev server's frontend (another worker, e.g. the floor harness's, can join it). */
  address: string;
  close(): Promise<void>;
}

export interface BenchEnvironmentOptions {
  /** PostgreSQL instead of the embedded PGlite. */
  databaseUrl?: string;
  /** Wraps the store's Db (e.g. to count statements). */
  wrapDb?: (db: Db) => Db;
  /** Wraps the worker's activities (e.g. to time them). */
  wrapActivities?: (activities: ReturnType<typeof createActivities>) => ReturnType<typeof createActivities>;
  /** The dev server's dynamic config (default: the product's, DEV_SERVER_TUNING). */
  devServerTuning?: readonly string[];
}

export async function startBenchEnvironment(env: Record<string, string> = {}, opts: BenchEnvironmentOptions = {}): Promise<BenchEnvironment> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed by an earlier environment of this process
  }
  const llm = await startScriptedLlm();
  // Benches register API keys: any secret will do for a store that lives as long as the bench.
  const opened = await openDb(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {});
  await migrate(opened);
  if (opened.hasVector) await prepareVectorColumn(opened);
  const store = createStore(opts.wrapDb ? opts.wrapDb(opened) : opened, { vector: opened.hasVector, apiKeySecret: randomBytes(32).toString('hex') });
  await store.tenants.ensure('bench', 'bench');
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('no Temporal CLI');
  const server = await startDevServer({ cliPath: cli.path, ...(opts.devServerTuning ? { tuning: opts.devServerTuning } : {}) });
  // As `npm start` runs both halves: the API's client on its own connection. BENCH_EAGER_START=1
  // shares the worker's NativeConnection instead, so starts are eager (api/services/runLauncher.ts).
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const connection = EAGER_START ? workerConnection : await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const created = createActivities({ store, llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'x' }), log: silentLogger, env });
  const activities = opts.wrapActivities ? opts.wrapActivities(created) : created;
  const taskQueue = 'bench';
  // The product's worker options (server/boot/worker.ts), with a cache large enough for every run.
  // BENCH_WORKER_OPTIONS (JSON) tries other worker options, e.g. '{"workflowThreadPoolSize":2}'.
  const tried = JSON.parse(process.env.BENCH_WORKER_OPTIONS ?? '{}') as Partial<WorkerOptions>;
  const worker = await Worker.create({
    ...WORKER_TUNING,
    ...workerSlots(),
    ...tried,
    connection: workerConnection,
    taskQueue,
    workflowsPath: workflowsPath(root),
    bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
    activities,
    sinks: ledgerSinks(store, silentLogger),
    maxCachedWorkflows: 1000,
  });
  return {
    llm,
    store,
    client,
    worker,
    activities,
    taskQueue,
    address: server.address,
    close: async () => {
      await llm.stop();
      await store.close();
      if (connection !== workerConnection) await connection.close();
      await workerConnection.close();
      await server.stop();
    },
  };
}

/** Begin → `n` nodes in a row: model calls (`activity`), or inline VariableAssigners (`inline`). */
export function chainCanvas(kind: 'activity' | 'inline', n: number): Record<string, unknown> {
  const nodes: Record<string, { name: string; params?: Record<string, unknown>; downstream?: string[] }> = { begin: { name: 'Begin', downstream: ['N:0'] } };
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? [`N:${i + 1}`] : [];
    nodes[`N:${i}`] =
      kind === 'activity'
        ? { name: 'LLM', params: { llm_id: 'bench@OpenAI', sys_prompt: `step ${i}` }, downstream: next }
        : { name: 'VariableAssigner', params: { variables: [{ variable: 'env.n', operator: '+=', parameter: 1 }] }, downstream: next };
  }
  return dsl(nodes, { variables: { n: { name: 'n', type: 'number', value: 0 } } });
}

/** Prints a table: the first column left-aligned, the others right-aligned. */
export function table(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  process.stdout.write(`\n${title}\n`);
  for (const r of [header, ...rows]) process.stdout.write(`  ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}\n`);
}

export function printTable(title: string, rows: Array<[string, string]>): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\n${title} (${process.platform}/${process.arch}, node ${process.version})\n`);
  for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(width)}  ${v}\n`);
}

/** Starts a new run of a stored canvas as the API does (tenant `bench`, no session) and answers its workflow. */
export async function startBenchRun(deps: LaunchDeps, canvas: CanvasRecord): Promise<WorkflowHandle> {
  const run = await launchRun(deps, { tenantId: 'bench', canvas, sessionId: null, query: 'q', inputs: null, files: [], userId: 'u', session: null });
  return deps.client.workflow.getHandle(run.workflowId);
}

/** Runs a benchmark's main and exits with its outcome. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
