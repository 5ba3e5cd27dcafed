/**
 * Python virtual environments for tests that drive the API with Python clients (ragflow-sdk, the
 * OpenAI Python SDK, RAGFlow's own REST test suite). Each lives in `.tools/python/<name>`
 * (git-ignored), made once from the machine's Python (pyenv's versions, or AGENT_CANVAS_PYTHON)
 * with packages from PyPI, and reused while its package list is unchanged.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STAMP = '.agent-canvas-packages';

export interface PythonVenv {
  dir: string;
  /** The venv's python executable. */
  python: string;
}

export interface VenvOptions {
  /** Folder name under `.tools/python/`. */
  name: string;
  /** pip requirement strings, e.g. `ragflow-sdk`, `openai>=2`. */
  packages: string[];
  /** Lowest Python the packages need, as [major, minor] (default 3.13: ragflow-sdk needs it). */
  minVersion?: [number, number];
  /** Highest minor version accepted (ragflow-sdk declares `<3.14`). */
  maxVersion?: [number, number];
  log?: (line: string) => void;
}

/** Creates (or reuses) the venv `.tools/python/<name>` with `packages` installed. */
export async function ensureVenv(opts: VenvOptions): Promise<PythonVenv> {
  const dir = path.join(root, '.tools', 'python', opts.name);
  const python = path.join(dir, 'bin', 'python');
  const wanted = JSON.stringify([...opts.packages].sort());
  const stampFile = path.join(dir, STAMP);
  if (existsSync(python) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === wanted) return { dir, python };

  const log = opts.log ?? ((line: string) => process.stderr.write(`[python] ${line}\n`));
  const base = findPython(opts.minVersion ?? [3, 13], opts.maxVersion ?? [3, 13]);
  rmSync(dir, { recursive: true, force: true });
  log(`creating ${path.relative(root, dir)} with ${base.path} (Python ${base.version.join('.')}); installing ${opts.packages.join(' ')}`);
  await run(base.path, ['-m', 'venv', dir]);
  await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...opts.packages]);
  writeFileSync(stampFile, `${wanted}\n`);
  return { dir, python };
}

interface FoundPython {
  path: string;
  version: [number, number];
}

/**
 * A Python interpreter within [min, max]: AGENT_CANVAS_PYTHON, then pyenv's installed versions
 * (newest first), then python3.N and python3 on PATH. Throws naming what was looked at.
 */
export function findPython(min: [number, number], max: [number, number]): FoundPython {
  const candidates: string[] = [];
  if (process.env.AGENT_CANVAS_PYTHON) candidates.push(process.env.AGENT_CANVAS_PYTHON);
  const pyenvRoot = process.env.PYENV_ROOT ?? pyenvRootFromCli() ?? path.join(process.env.HOME ?? '/root', '.pyenv');
  const versionsDir = path.join(pyenvRoot, 'versions');
  if (existsSync(versionsDir)) {
    const versions = readdirSync(versionsDir)
      .filter((v) => /^\d+\.\d+\.\d+$/.test(v))
      .sort((a, b) => compareVersions(b, a));
    candidates.push(...versions.map((v) => path.join(versionsDir, v, 'bin', 'python3')));
  }
  for (let minor = max[1]; minor >= min[1]; minor--) candidates.push(`python3.${minor}`);
  candidates.push('python3');
  const tried: string[] = [];
  for (const candidate of candidates) {
    const version = versionOf(candidate);
    tried.push(`${candidate}: ${version ? version.join('.') : 'not found'}`);
    if (version && compare(version, min) >= 0 && compare(version, max) <= 0) return { path: candidate, version };
  }
  throw new Error(
    `no Python ${min.join('.')}–${max.join('.')} found (set AGENT_CANVAS_PYTHON to one; pyenv's versions are looked at too). Tried:\n  ${tried.join('\n  ')}`,
  );
}

function pyenvRootFromCli(): string | null {
  const res = spawnSync('pyenv', ['root'], { encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() || null : null;
}

function versionOf(executable: string): [number, number] | null {
  const res = spawnSync(executable, ['-c', 'import sys; print(sys.version_info[0], sys.version_info[1])'], { encoding: 'utf8' });
  if (res.status !== 0) return null;
  const [major, minor] = res.stdout.trim().split(' ').map(Number);
  return major !== undefined && minor !== undefined ? [major, minor] : null;
}

function compare(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(command: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? root, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}:\n${output.slice(-4000)}`)),
    );
  });
}
