/**
 * A bare worker as a process of its own (the product's createWorker on the suite's prebuilt
 * workflow bundle, so it starts in seconds): for tests that freeze (SIGSTOP) or kill a worker
 * while the test process keeps the API, the store and the model. `startWorkerProcess` spawns it;
 * run directly, it reads its settings from the environment and prints `worker ready` when it polls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const self = fileURLToPath(import.meta.url);

export interface WorkerProcess {
  proc: ChildProcess;
  output(): string;
  kill(): Promise<void>;
}

export async function startWorkerProcess(env: {
  temporalAddress: string;
  taskQueue: string;
  databaseUrl: string;
  llmUrl: string;
  bundlePath: string;
}): Promise<WorkerProcess> {
  let output = '';
  const proc = spawn(process.execPath, ['--import', 'tsx', self], {
    cwd: root,
    env: {
      ...process.env,
      WP_TEMPORAL_ADDRESS: env.temporalAddress,
      WP_TASK_QUEUE: env.taskQueue,
      WP_DATABASE_URL: env.databaseUrl,
      WP_LLM_URL: env.llmUrl,
      WP_BUNDLE: env.bundlePath,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const kill = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGCONT');
    proc.kill('SIGKILL');
    await exited;
  };
  const deadline = Date.now() + 120_000;
  while (!output.includes('worker ready')) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      await kill();
      throw new Error(`the worker process did not start:\n${output.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, output: () => output, kill };
}

async function main(): Promise<void> {
  const [{ createWorker }, { openStore }, { llmSettingsFromEnv }, { silentLogger }] = await Promise.all([
    import('../../server/boot/worker'),
    import('../../src/io/store/store'),
    import('../../src/io/llm/providers'),
    import('../../src/io/log'),
  ]);
  const e = process.env;
  const store = await openStore({ databaseUrl: e.WP_DATABASE_URL });
  const { worker } = await createWorker({
    address: e.WP_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue: e.WP_TASK_QUEUE!,
    projectRoot: root,
    workflowBundlePath: e.WP_BUNDLE,
    // Heartbeats reach the server within half a second, as the test workers' do.
    activities: { store, llm: llmSettingsFromEnv({ LLM_BASE_URL: e.WP_LLM_URL, LLM_API_KEY: 'test' }), log: silentLogger, heartbeatMs: 200, env: {} },
  });
  const running = worker.run();
  process.stdout.write('worker ready\n');
  await running;
}

if (process.argv[1] === self) {
  main().catch((err: unknown) => {
    process.stderr.write(`worker process failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
