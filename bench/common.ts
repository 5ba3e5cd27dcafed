/**
 * What every benchmark needs: the scripted model, an embedded store, a Temporal dev server (the
 * project's CLI, eager activities on, as `npm start` runs it) and a worker with the real
 * activities. Benchmarks print numbers and assert nothing.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { silentLogger } from '../activities/log';
import { llmSettingsFromEnv } from '../src/llm/providers';
import { openStore } from '../src/store/store';
import type { Store } from '../src/store/types';
import { obtainTemporalCli } from '../src/temporal/cli';
import { WORKFLOW_PRELOAD_MODULES, workflowsPath } from '../src/temporal/bundle';
import { startDevServer } from '../src/temporal/devServer';
import { startScriptedLlm, type ScriptedLlm } from '../test/helpers/scriptedLlm';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPEATS = Number(process.env.BENCH_REPEATS ?? 15);

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
  close(): Promise<void>;
}

export async function startBenchEnvironment(env: Record<string, string> = {}): Promise<BenchEnvironment> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed by an earlier environment of this process
  }
  const llm = await startScriptedLlm();
  // Benches register API keys: any secret will do for a store that lives as long as the bench.
  const store = await openStore({ apiKeySecret: randomBytes(32).toString('hex') });
  await store.tenants.ensure('bench', 'bench');
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('no Temporal CLI');
  const server = await startDevServer({ cliPath: cli.path });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const activities = createActivities({ store, llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'x' }), log: silentLogger, env });
  const taskQueue = 'bench';
  const worker = await Worker.create({ connection: await NativeConnection.connect({ address: server.address }), taskQueue, workflowsPath: workflowsPath(root), bundlerOptions: { preloadModules: [...WORKFLOW_PRELOAD_MODULES] }, activities, maxCachedWorkflows: 1000 });
  return {
    llm,
    store,
    client,
    worker,
    activities,
    taskQueue,
    close: async () => {
      await llm.stop();
      await store.close();
      await connection.close();
      await server.stop();
    },
  };
}

export function printTable(title: string, rows: Array<[string, string]>): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\n${title} (${process.platform}/${process.arch}, node ${process.version})\n`);
  for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(width)}  ${v}\n`);
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
