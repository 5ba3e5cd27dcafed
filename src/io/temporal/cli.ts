/**
 * Finds (or, as a last resort, builds) the Temporal CLI used to run `temporal server start-dev`.
 *
 * Order: TEMPORAL_CLI_PATH → `temporal` on PATH → `<project>/.tools/bin/temporal` → a machine-wide
 * cache shared by every clone on this machine → `go install` (when Go exists). Null means none:
 * the caller then asks for TEMPORAL_ADDRESS, a CLI or Go.
 */
import { execFile, spawn } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** Pinned CLI version. Later versions carry a `replace` directive, so `go install` refuses them. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** Where a usable Temporal CLI was found and how it got there. */
export interface CliLocation {
  path: string;
  source: 'env' | 'path' | 'tools' | 'cache' | 'go-install';
}

/** Options for {@link obtainTemporalCli}. */
export interface ObtainCliOptions {
  /** Repository root; the CLI lives in `<projectRoot>/.tools/bin`. */
  projectRoot: string;
  /** Receives one-line progress messages. */
  log?: (line: string) => void;
  /** Set false to never run `go install` (tests, read-only checks). Default true. */
  allowBuild?: boolean;
}

const EXE_NAME = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const VERSION_TIMEOUT_MS = 20_000;
const LOCK_STALE_MS = 15 * 60_000;
const LOCK_POLL_MS = 2_000;
const PROGRESS_EVERY_MS = 10_000;

/** Finds or builds the CLI. Returns null when none can be had. */
export async function obtainTemporalCli(opts: ObtainCliOptions): Promise<CliLocation | null> {
  const log = opts.log ?? (() => {});

  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    // An explicit setting that does not work is a configuration mistake: say so instead of guessing.
    if (!(await isExecutable(fromEnv))) {
      throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} does not point at an executable file`);
    }
    if (!(await answersVersion(fromEnv))) {
      throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} did not answer \`--version\` like a Temporal CLI`);
    }
    return { path: fromEnv, source: 'env' };
  }

  const onPath = await findOnPath(EXE_NAME);
  if (onPath && (await answersVersion(onPath))) return { path: onPath, source: 'path' };

  const toolsBinary = toolsBinaryPath(opts.projectRoot);
  if (await isUsable(toolsBinary)) return { path: toolsBinary, source: 'tools' };

  const fromCache = await copyFromMachineCache(toolsBinary, log);
  if (fromCache) return fromCache;

  if (opts.allowBuild === false || !(await findOnPath('go'))) return null;
  try {
    return await withBuildLock(opts.projectRoot, log, async () => {
      // Another process may have finished the build while we waited for the lock.
      if (await isUsable(toolsBinary)) return { path: toolsBinary, source: 'tools' };
      await goInstall(opts.projectRoot, log);
      if (!(await isUsable(toolsBinary))) throw new Error(`go install finished but ${toolsBinary} does not run`);
      await saveToMachineCache(toolsBinary, log);
      return { path: toolsBinary, source: 'go-install' };
    });
  } catch (error) {
    // A failed build (e.g. module proxy unreachable) is reported by the caller with what to provide instead.
    log(`temporal-cli: build failed: ${errorMessage(error)}`);
    return null;
  }
}

/** `<projectRoot>/.tools/bin/temporal`, the project-local CLI location (git-ignored). */
export function toolsBinaryPath(projectRoot: string): string {
  return path.join(projectRoot, '.tools', 'bin', EXE_NAME);
}

/** Machine-wide cache folder, so a fresh clone on the same machine skips the ~3 min build. */
export function machineCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'agent-canvas', `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function isUsable(file: string): Promise<boolean> {
  return (await isExecutable(file)) && (await answersVersion(file));
}

/** Runs `<file> --version`; true when it looks like the Temporal CLI. */
function answersVersion(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (error, stdout) => {
      resolve(!error && /temporal version/i.test(String(stdout)));
    });
  });
}

async function findOnPath(name: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

async function copyFromMachineCache(toolsBinary: string, log: (line: string) => void): Promise<CliLocation | null> {
  const cached = path.join(machineCacheDir(), EXE_NAME);
  if (!(await isUsable(cached))) return null;
  await installFile(cached, toolsBinary);
  log(`temporal-cli: reused machine cache ${cached}`);
  return { path: toolsBinary, source: 'cache' };
}

async function saveToMachineCache(built: string, log: (line: string) => void): Promise<void> {
  const cached = path.join(machineCacheDir(), EXE_NAME);
  try {
    await installFile(built, cached);
    log(`temporal-cli: cached build at ${cached}`);
  } catch (error) {
    // The cache only saves time later; a read-only home must not fail this run.
    log(`temporal-cli: could not write machine cache ${cached}: ${errorMessage(error)}`);
  }
}

/** Hard-links (or copies) `from` to `to` through a temp name, so readers never see a half-written binary. */
async function installFile(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true });
  const temp = `${to}.${process.pid}.tmp`;
  await fs.rm(temp, { force: true });
  try {
    await fs.link(from, temp);
  } catch {
    await fs.copyFile(from, temp);
  }
  await fs.chmod(temp, 0o755);
  await fs.rename(temp, to);
}

/** Runs `fn` while holding `<projectRoot>/.tools/.build.lock`; a second process waits for the first. */
async function withBuildLock<T>(projectRoot: string, log: (line: string) => void, fn: () => Promise<T>): Promise<T> {
  const lockFile = path.join(projectRoot, '.tools', '.build.lock');
  await fs.mkdir(path.dirname(lockFile), { recursive: true });
  let announcedWait = false;
  for (;;) {
    try {
      const handle = await fs.open(lockFile, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await isLockStale(lockFile)) {
      log(`temporal-cli: removing stale build lock ${lockFile}`);
      await fs.rm(lockFile, { force: true });
      continue;
    }
    if (!announcedWait) {
      log('temporal-cli: another process is building the Temporal CLI; waiting for it...');
      announcedWait = true;
    }
    await delay(LOCK_POLL_MS);
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lockFile, { force: true });
  }
}

/** A lock is stale when older than {@link LOCK_STALE_MS} or its owner (pid inside) is gone, e.g. after Ctrl-C. */
async function isLockStale(lockFile: string): Promise<boolean> {
  try {
    const [stat, content] = await Promise.all([fs.stat(lockFile), fs.readFile(lockFile, 'utf8')]);
    if (Date.now() - stat.mtimeMs > LOCK_STALE_MS) return true;
    const owner = Number.parseInt(content, 10);
    if (!Number.isInteger(owner) || owner <= 0) return false; // still being written
    process.kill(owner, 0); // throws ESRCH when no such process
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Builds the pinned CLI into `<projectRoot>/.tools/bin` with `go install`, logging progress every ~10 s. */
async function goInstall(projectRoot: string, log: (line: string) => void): Promise<void> {
  const gobin = path.dirname(toolsBinaryPath(projectRoot));
  await fs.mkdir(gobin, { recursive: true });
  const started = Date.now();
  log(`temporal-cli: building Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (first run only, ~3 min)...`);
  const child = spawn('go', ['install', '-ldflags=-s -w', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
    cwd: gobin, // outside any go.mod, so the project's own files cannot influence the build
    env: { ...process.env, GOBIN: gobin, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keepTail = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout.on('data', keepTail);
  child.stderr.on('data', keepTail);
  const progress = setInterval(() => {
    log(`temporal-cli: still building (${Math.round((Date.now() - started) / 1000)}s)...`);
  }, PROGRESS_EVERY_MS);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`go install of Temporal CLI failed (exit ${code}):\n${output.trim()}`);
  } finally {
    clearInterval(progress);
  }
  log(`temporal-cli: built in ${Math.round((Date.now() - started) / 1000)}s`);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
