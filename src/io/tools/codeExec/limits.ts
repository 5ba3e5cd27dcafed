/**
 * CodeExec's sandbox settings, read from the worker's environment (`CODE_EXEC_*`). Bad values
 * fall back to the defaults here; `src/io/config.ts` already refuses them when the process starts.
 */
import { existsSync } from 'node:fs';

/** Limits and programs of one sandboxed run. */
export interface SandboxLimits {
  /** Wall time, seconds; the CPU-time limit is the same number of seconds. */
  timeoutS: number;
  /** Address space of the interpreter, MB (Node gets a fixed allowance on top: see NODE_RESERVE_MB). */
  memoryMb: number;
  /** Processes and threads the script may have at once. */
  maxProcesses: number;
  /** stdout + stderr + result bytes before the script is stopped. */
  maxOutputBytes: number;
  /** Size of the writable scratch directory (a tmpfs), MB. */
  scratchMb: number;
  /** The unprivileged user and group the script runs as (when the worker is root). */
  uid: number;
  gid: number;
  python: string;
  node: string;
  /** bubblewrap, which applies the seccomp filter and the script's own user namespace. */
  bwrap: string;
  /** Run without namespaces (development only): limits still apply, isolation does not. */
  unsafeNoSandbox: boolean;
}

/**
 * Address space V8 needs besides its heap: it reserves ~720 MB before running a line (code range,
 * cages, thread stacks) and about as much again as the heap grows (measured on Node 20: peak
 * VmSize ≈ 980 MB + heap). Node's JS heap is held to `memoryMb` by --max-old-space-size; this
 * allowance lets it get there, and a 2 GB buffer still fails.
 */
export const NODE_RESERVE_MB = 1280;

function intIn(raw: string | undefined, def: number, min: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return def;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min && n <= max ? n : def;
}

function defaultPython(): string {
  // A fixed system path rather than PATH: version-manager shims (pyenv) are shell scripts that
  // need the user's home, which the sandbox does not show.
  return firstExisting(['/usr/bin/python3', '/usr/local/bin/python3']);
}

function firstExisting(paths: string[]): string {
  return paths.find((p) => existsSync(p)) ?? paths[0]!;
}

/** The settings in `env`, with defaults. */
export function sandboxLimits(env: Record<string, string | undefined>): SandboxLimits {
  return {
    timeoutS: intIn(env.CODE_EXEC_TIMEOUT_S, 10, 1, 3600),
    memoryMb: intIn(env.CODE_EXEC_MEMORY_MB, 256, 32, 65_536),
    maxProcesses: intIn(env.CODE_EXEC_MAX_PROCESSES, 32, 1, 4096),
    maxOutputBytes: intIn(env.CODE_EXEC_MAX_OUTPUT_BYTES, 1024 * 1024, 1024, 1024 * 1024 * 1024),
    scratchMb: intIn(env.CODE_EXEC_SCRATCH_MB, 64, 1, 65_536),
    uid: intIn(env.CODE_EXEC_UID, 65534, 1, 2 ** 32 - 2),
    gid: intIn(env.CODE_EXEC_GID, 65534, 1, 2 ** 32 - 2),
    python: env.CODE_EXEC_PYTHON?.trim() || defaultPython(),
    node: env.CODE_EXEC_NODE?.trim() || process.execPath,
    bwrap: env.CODE_EXEC_BWRAP?.trim() || firstExisting(['/usr/bin/bwrap', '/usr/local/bin/bwrap']),
    unsafeNoSandbox: env.CODE_EXEC_UNSAFE_NO_SANDBOX === '1' || env.CODE_EXEC_UNSAFE_NO_SANDBOX === 'true',
  };
}
