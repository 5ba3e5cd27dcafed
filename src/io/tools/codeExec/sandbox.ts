/**
 * Runs one script in the sandbox (launcher.ts) and collects what it wrote, enforcing the wall
 * time and the output cap from outside: on either, the whole process group is killed (and with
 * the namespace's PID 1 gone, the kernel kills everything left inside).
 */
import { spawn } from 'node:child_process';
import { access, constants, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../../errors';
import { extraReadOnlyDirs, interpreterCommand, sandboxCommand, type Language } from './launcher';
import type { SandboxLimits } from './limits';

/** What a sandboxed run produced. */
export interface SandboxRun {
  /** The sandbox was set up (READY seen); false: the script never ran. */
  ready: boolean;
  /** The wrapper's JSON result (fd 3), when it wrote one. */
  result: string | null;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** The signal that ended the script, also when it reached us as a shell's 128+N exit code. */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  outputCapped: boolean;
  elapsedMs: number;
}

const READY = 'READY\n';
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
let unsafeWarned = false;

function signalName(n: number): NodeJS.Signals | null {
  const entry = Object.entries(os.constants.signals).find(([, v]) => v === n);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}

async function interpreterOf(lang: Language, limits: SandboxLimits): Promise<{ configured: string; resolved: string }> {
  const configured = lang === 'python' ? limits.python : limits.node;
  try {
    await access(configured, constants.X_OK);
    return { configured, resolved: await realpath(configured) };
  } catch {
    const name = lang === 'python' ? 'Python (CODE_EXEC_PYTHON)' : 'Node.js (CODE_EXEC_NODE)';
    throw new AppError('TOOL_UNAVAILABLE', `CodeExec: ${name} is not available at ${configured}`);
  }
}

async function bwrapOf(limits: SandboxLimits): Promise<{ configured: string; resolved: string }> {
  try {
    await access(limits.bwrap, constants.X_OK);
    return { configured: limits.bwrap, resolved: await realpath(limits.bwrap) };
  } catch {
    throw new AppError(
      'TOOL_UNAVAILABLE',
      `CodeExec: bubblewrap (CODE_EXEC_BWRAP) is not available at ${limits.bwrap}, and scripts never run without the sandbox it completes (Debian: apt-get install bubblewrap)`,
    );
  }
}

/** Runs `code` with `args`; never throws for what the script does, only for a missing interpreter or bwrap. */
export async function runSandboxed(
  lang: Language,
  code: string,
  args: Record<string, unknown>,
  limits: SandboxLimits,
  signal: AbortSignal,
): Promise<SandboxRun> {
  const { configured, resolved } = await interpreterOf(lang, limits);
  const bwrap = limits.unsafeNoSandbox ? null : await bwrapOf(limits);
  // The host side of the scratch dir stays empty: the sandbox mounts its own tmpfs over it.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-canvas-codeexec-'));
  try {
    const asRoot = process.getuid?.() === 0;
    const [cmd, argv] = limits.unsafeNoSandbox
      ? ((): [string, string[]] => {
          const [c, ...rest] = interpreterCommand(lang, configured, limits, dir);
          return [c!, rest];
        })()
      : sandboxCommand(dir, lang, configured, extraReadOnlyDirs([configured, resolved, bwrap!.configured, bwrap!.resolved]), limits, asRoot);
    if (limits.unsafeNoSandbox && !unsafeWarned) {
      unsafeWarned = true;
      process.emitWarning('CodeExec runs scripts WITHOUT a sandbox (CODE_EXEC_UNSAFE_NO_SANDBOX): for development only');
    }
    return await collect(cmd, argv, dir, JSON.stringify({ code, args }), limits, signal);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function collect(cmd: string, argv: string[], cwd: string, input: string, limits: SandboxLimits, signal: AbortSignal): Promise<SandboxRun> {
  return new Promise((resolve) => {
    const started = Date.now();
    const out: Buffer[][] = [[], [], []];
    let total = 0;
    let timedOut = false;
    let outputCapped = false;
    let spawnError: string | null = null;
    let finished = false;
    let grace: NodeJS.Timeout | null = null;
    const child = spawn(cmd, argv, { cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'], env: { PATH: SANDBOX_PATH } });
    const streams = [child.stdout, child.stderr, child.stdio[3]];

    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, limits.timeoutS * 1000);

    const finish = (code: number | null, sig: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      signal.removeEventListener('abort', kill);
      const text = (i: number) => Buffer.concat(out[i]!).toString('utf8');
      let channel = text(2);
      const ready = limits.unsafeNoSandbox ? spawnError === null : channel.startsWith(READY);
      if (channel.startsWith(READY)) channel = channel.slice(READY.length);
      // The namespace's shell reports a killed script as 128 + signal.
      const viaShell = !limits.unsafeNoSandbox && code !== null && code > 128 ? signalName(code - 128) : null;
      resolve({
        ready,
        result: channel.trim() ? channel : null,
        stdout: text(0),
        stderr: spawnError ? `${spawnError}\n${text(1)}` : text(1),
        exitCode: code,
        signal: sig ?? viaShell,
        timedOut,
        outputCapped,
        elapsedMs: Date.now() - started,
      });
    };

    streams.forEach((stream, i) => {
      stream?.on('data', (chunk: Buffer) => {
        if (outputCapped) return;
        const room = limits.maxOutputBytes - total;
        if (chunk.length > room) {
          // Stop reading past the cap and stop the writer: a script printing forever would
          // otherwise fill memory here or block on a full pipe until the timeout.
          out[i]!.push(chunk.subarray(0, Math.max(0, room)));
          total = limits.maxOutputBytes;
          outputCapped = true;
          kill();
          return;
        }
        out[i]!.push(chunk);
        total += chunk.length;
      });
      stream?.on('error', () => undefined);
    });
    child.stdin?.on('error', () => undefined); // the script may exit without reading its input
    child.stdin?.end(input);
    child.on('error', (err) => {
      spawnError = err.message;
      if (!child.pid) finish(null, null); // never started: no 'close' will come
    });
    // 'close' waits for every pipe; a pipe held open by something that escaped the kill would
    // hang it, so 'exit' plus a short grace period also ends the run.
    child.on('exit', () => {
      kill();
      grace = setTimeout(() => streams.forEach((s) => s?.destroy()), 1000);
    });
    child.on('close', finish);
    signal.addEventListener('abort', kill, { once: true });
    if (signal.aborted) kill();
  });
}
