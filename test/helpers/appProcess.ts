/**
 * agent-canvas as a separate process (`server/main.ts`, what `npm start` runs), for tests that kill
 * it: a free port, start, wait until healthy, and the output kept for failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pickFreePort } from '../../src/io/temporal/ports';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const freePort = (): Promise<number> => pickFreePort();

export interface AppProcess {
  proc: ChildProcess;
  output(): string;
  /** SIGKILL, and wait until the process is gone. */
  kill(): Promise<void>;
}

export function startAppProcess(env: Record<string, string>): AppProcess {
  return spawnApp(['--import', 'tsx', 'server/main.ts'], env);
}

/** Node with `args` (server/main.ts behind whatever preloads the caller adds), from the repository root. */
export function spawnApp(args: string[], env: Record<string, string>): AppProcess {
  let output = '';
  const proc = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return {
    proc,
    output: () => output,
    kill: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

export async function waitHealthy(base: string, app: AppProcess, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the app did not become healthy:\n${app.output().slice(-3000)}`);
}

/** The environment of a test app process: its own port, data folder, key and task queue, the shared dev server. */
export function appEnv(opts: {
  port: number;
  dataDir: string;
  apiKey: string;
  llmUrl: string;
  temporalAddress: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  return {
    PORT: String(opts.port),
    HOST: '127.0.0.1',
    DATA_DIR: opts.dataDir,
    API_KEY: opts.apiKey,
    LLM_BASE_URL: opts.llmUrl,
    LLM_API_KEY: 'test',
    TEMPORAL_ADDRESS: opts.temporalAddress,
    TASK_QUEUE: `app-${randomUUID()}`,
    // A killed worker's calls are retried elsewhere within two seconds.
    ACTIVITY_HEARTBEAT_TIMEOUT_MS: '2000',
    LOAD_EXAMPLES: 'false',
    LOG_LEVEL: 'warn',
    // The bundle the suite's global setup built (test/globalSetup.ts), instead of one per start.
    ...(process.env.AGENT_CANVAS_TEST_WORKFLOW_BUNDLE ? { WORKER_WORKFLOW_BUNDLE: process.env.AGENT_CANVAS_TEST_WORKFLOW_BUNDLE } : {}),
    ...opts.extra,
  };
}
