/**
 * Stopping `npm start` the way supervisors, container runtimes and terminals do: one signal to the
 * launcher's pid alone (not its process group). The whole stack it started — the server, the
 * Temporal dev server, a CodeExec sandbox in the middle of a run — must be gone within the
 * shutdown bound, through the server's own drain, with every port it held free again. Also when
 * the launcher is SIGKILLed and cannot pass anything on, and when the signal goes to npm itself.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { waitHealthStatus } from './processControl';
import { portIsFree, processTree, stillRunning, type ProcessInfo } from './processTree';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY = 'launcher-stop-test-key';
/** Short: a stop waits half of it for the sandboxed activity (which sleeps on), so every case pays it. */
const SHUTDOWN_TIMEOUT_MS = 4_000;
/** Beyond the shutdown bound: process exits and the dev server's own stop, on a loaded 2-core machine. */
const SLACK_MS = 15_000;

const SLEEPING_SCRIPT = dsl({
  begin: { name: 'Begin', downstream: ['CodeExec:sleep'] },
  'CodeExec:sleep': {
    name: 'CodeExec',
    params: { script: 'import time\n\ndef main():\n    time.sleep(600)\n    return "slept"\n', outputs: { result: { type: 'String', value: '' } } },
    downstream: ['Message:m'],
  },
  'Message:m': { name: 'Message', params: { content: ['{CodeExec:sleep@result}'] } },
});

let stack: AppProcess | null = null;
/** Every process a case saw, so that a failing case leaves none behind (orphans are no longer in the tree). */
let seen: ProcessInfo[] = [];
const dataDirs: string[] = [];

afterEach(async () => {
  if (stack) seen.push(...processTree(stack.proc.pid!));
  for (const p of stillRunning(seen)) process.kill(p.pid, 'SIGKILL');
  [stack, seen] = [null, []];
});

afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm start` (or the launcher it runs) on its own data folder, its own dev server and ports. */
async function startStack(launcher: 'node' | 'npm') {
  const [port, temporalPort, temporalUiPort] = [await freePort(), await freePort(), await freePort()];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-launcher-'));
  dataDirs.push(dataDir);
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEY: KEY,
    // A model is configured (never called here), so the stop drains in product order: API, worker, dev server.
    LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    LLM_API_KEY: 'unused',
    TEMPORAL_ADDRESS: undefined,
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(temporalUiPort),
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    LOAD_EXAMPLES: 'false',
    LOG_LEVEL: 'warn',
    CODE_EXEC_TIMEOUT_S: '600',
  };
  const command = launcher === 'npm' ? ['npm', ['start']] : [process.execPath, ['scripts/run.mjs', 'start']];
  const proc = spawn(command[0] as string, command[1] as string[], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
  stack = { proc, output: () => output, kill: async () => void proc.kill('SIGKILL') };
  const base = `http://127.0.0.1:${port}`;
  expect(await waitHealthStatus(base, stack, 200)).toMatchObject({ status: 200 });
  return { app: stack, base, ports: [port, temporalPort, temporalUiPort] };
}

/** Starts a run whose CodeExec sleeps, and resolves once its sandbox process is up. */
async function runInSandbox(base: string, app: AppProcess): Promise<AbortController> {
  const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const created = (await (
    await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'sleeps', dsl: SLEEPING_SCRIPT }) })
  ).json()) as { data: { id: string } };
  const stream = new AbortController();
  void fetch(`${base}/api/v1/agents/chat/completions`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ agent_id: created.data.id, query: 'go', stream: true }),
    signal: stream.signal,
  })
    .then((res) => res.text())
    .catch(() => {});
  const until = Date.now() + 120_000;
  while (!processTree(app.proc.pid!).some((p) => p.command.includes('unshare'))) {
    if (Date.now() > until) throw new Error(`no CodeExec sandbox started:\n${app.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return stream;
}

/** Resolves with what is still running of `processes` and which ports are held once all are gone or the bound passed. */
async function afterStop(processes: ProcessInfo[], ports: number[], boundMs: number) {
  const until = Date.now() + boundMs;
  let left = stillRunning(processes);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    left = stillRunning(processes);
  }
  const held = [];
  for (const port of ports) if (!(await portIsFree(port))) held.push(port);
  return { left: left.map((p) => `${p.pid} ${p.command.slice(0, 120)}`), held };
}

if (process.platform !== 'linux') console.warn('[test/process/launcherStop] skipped: process groups and /proc are read as on Linux');
describe.skipIf(process.platform !== 'linux')('a stop signal to the launcher alone', () => {
  it.each([
    { launcher: 'node', signal: 'SIGTERM' },
    { launcher: 'node', signal: 'SIGHUP' },
    { launcher: 'node', signal: 'SIGINT' },
    { launcher: 'node', signal: 'SIGKILL' },
    { launcher: 'npm', signal: 'SIGTERM' },
  ] as const)(
    '$signal to the $launcher launcher stops the server, the dev server and the sandbox, and frees every port, within the shutdown bound',
    async ({ launcher, signal }) => {
      const { app, base, ports } = await startStack(launcher);
      const stream = await runInSandbox(base, app);
      const processes = processTree(app.proc.pid!);
      seen = processes;
      expect(processes.map((p) => p.command).join('\n')).toMatch(/server start-dev/);

      const sent = Date.now();
      process.kill(app.proc.pid!, signal);
      const { left, held } = await afterStop(processes, ports, SHUTDOWN_TIMEOUT_MS + SLACK_MS);
      const ms = Date.now() - sent;
      stream.abort();
      console.log(`[launcher stop] ${signal} to ${launcher}: ${processes.length} processes gone after ${ms} ms`);
      expect({ left, held }, app.output().slice(-3000)).toEqual({ left: [], held: [] });
      // Through the server's own stop (drain, then release), not only the launcher's last-resort kill.
      expect(app.output()).toMatch(/shutting down[\s\S]*agent-canvas: stopped/);
    },
    300_000,
  );
});
