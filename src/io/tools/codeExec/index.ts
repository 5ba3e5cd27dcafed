/**
 * The CodeExec executor: runs the node's (or the model's) script in the sandbox and turns what
 * happened into outputs or a clear error. What the script did wrong (an exception, a syntax
 * error, a limit it hit) is TOOL_BAD_REQUEST: running it again would do the same. A sandbox
 * that cannot be set up is TOOL_UNAVAILABLE, and the script does not run at all (fail closed).
 */
import { Context } from '@temporalio/activity';
import { CodeExecParams } from '../../../core/components/CodeExec';
import { AppError } from '../../../errors';
import type { ToolExecutor } from '../executor';
import type { Language } from './launcher';
import { sandboxLimits, type SandboxLimits } from './limits';
import { mapOutputs } from './outputs';
import { runSandboxed, type SandboxRun } from './sandbox';

const TAIL_LINES = 30;
const TAIL_CHARS = 3000;

function tail(text: string): string {
  const lines = text.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
  return lines.length > TAIL_CHARS ? `…${lines.slice(-TAIL_CHARS)}` : lines;
}

function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`;
}

interface WrapperResult {
  ok: boolean;
  value?: unknown;
  kind?: string;
  error?: string;
  traceback?: string;
}

function parseResult(raw: string | null): WrapperResult | null {
  if (!raw) return null;
  try {
    const r = JSON.parse(raw) as WrapperResult;
    return typeof r === 'object' && r !== null && typeof r.ok === 'boolean' ? r : null;
  } catch {
    return null;
  }
}

const bad = (message: string) => new AppError('TOOL_BAD_REQUEST', `CodeExec: ${message}`);

/** main()'s return value, or the error that explains why there is none. */
export function verdict(run: SandboxRun, limits: SandboxLimits): unknown {
  if (!run.ready) {
    throw new AppError(
      'TOOL_UNAVAILABLE',
      `CodeExec: the sandbox could not be set up on this machine, so the script did not run (${tail(run.stderr) || `exit code ${run.exitCode}`}). ` +
        'It needs Linux namespaces (unprivileged user namespaces included), util-linux and bubblewrap; ' +
        'CODE_EXEC_UNSAFE_NO_SANDBOX=1 runs scripts without it, for development only.',
    );
  }
  const result = parseResult(run.result);
  const memoryHint = /MemoryError|heap out of memory|Fatal process out of memory|Allocation failed|Cannot allocate memory|std::bad_alloc/;
  if (run.outputCapped) throw bad(`the script wrote more than ${bytes(limits.maxOutputBytes)} of output and was stopped (output truncated)`);
  if (run.timedOut && !result) throw bad(`the script ran longer than ${limits.timeoutS} s and was stopped`);
  if (result?.ok) return result.value ?? null;
  if (result) {
    const detail = tail(result.traceback || result.error || '') || 'unknown error';
    if (result.kind === 'memory') throw bad(`the script ran out of memory (limit ${limits.memoryMb} MB):\n${detail}`);
    if (/Resource temporarily unavailable|EAGAIN/.test(detail)) throw bad(`the script reached the limit of ${limits.maxProcesses} processes:\n${detail}`);
    throw bad(`the script failed:\n${detail}`);
  }
  const stderr = tail(run.stderr);
  if (run.signal === 'SIGXCPU') throw bad(`the script used more than ${limits.timeoutS} s of CPU time and was stopped`);
  if (memoryHint.test(stderr)) {
    const lines = stderr.split('\n').filter((l) => memoryHint.test(l));
    throw bad(`the script ran out of memory (limit ${limits.memoryMb} MB):\n${lines.join('\n')}`);
  }
  // SIGKILL not sent by us: the CPU hard limit (SIGXCPU ignored) or the kernel's OOM killer.
  const how =
    run.signal === 'SIGKILL'
      ? `was killed (past its CPU time limit of ${limits.timeoutS} s, or out of memory)`
      : run.signal
        ? `was killed by ${run.signal}`
        : `exited with code ${run.exitCode}`;
  throw bad(`the script ${how} before main() returned${stderr ? `:\n${stderr}` : ''}`);
}

function language(raw: unknown): Language {
  const lang = String(raw ?? 'python')
    .trim()
    .toLowerCase();
  if (lang === 'python' || lang === 'python3' || lang === '') return 'python';
  if (lang === 'javascript' || lang === 'nodejs' || lang === 'js') return 'javascript';
  throw bad(`unsupported language "${lang}" (python or javascript)`);
}

/** Heartbeats while the script runs, so Temporal does not take a long script for a lost worker. */
function heartbeating(): () => void {
  let ctx: Context | null = null;
  try {
    ctx = Context.current();
  } catch {
    return () => undefined; // called outside an activity (tests)
  }
  const beat = setInterval(() => ctx.heartbeat(), 1000);
  return () => clearInterval(beat);
}

/** The `toolInvoke` executor of CodeExec (canvas node: `arguments`; Agent tool: `lang`, `script`). */
export const codeExec: ToolExecutor = async ({ params, args, env, signal }) => {
  const parsed = CodeExecParams.safeParse(params);
  if (!parsed.success)
    throw new AppError('TOOL_BAD_REQUEST', `CodeExec params: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const p = parsed.data;
  const lang = language(args.lang ?? p.lang);
  const script = typeof args.script === 'string' && args.script.trim() ? args.script : p.script;
  if (!script.trim()) throw bad('the script is empty');
  const callArgs =
    typeof args.arguments === 'object' && args.arguments !== null && !Array.isArray(args.arguments) ? (args.arguments as Record<string, unknown>) : {};
  const limits = sandboxLimits(env);
  const stop = heartbeating();
  let run: SandboxRun;
  try {
    run = await runSandboxed(lang, script, callArgs, limits, signal);
  } finally {
    stop();
  }
  if (signal.aborted) throw signal.reason ?? new Error('CodeExec: canceled');
  const value = verdict(run, limits);
  const mapped = mapOutputs(p.outputs, value);
  const content = String(mapped.outputs.content ?? '');
  const printed = run.stdout.trim() ? `\n\nstdout:\n${tail(run.stdout)}` : '';
  return { text: `${content}${printed}`.trim(), outputs: mapped.error ? { ...mapped.outputs, _ERROR: mapped.error } : mapped.outputs };
};
