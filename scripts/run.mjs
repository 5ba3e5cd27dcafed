// `npm start` and `npm test` on a fresh clone: install dependencies if needed, then run.
// Plain Node ESM with builtins only, because it runs before node_modules exists.
//
//   node scripts/run.mjs start [args for server/main.ts]
//   node scripts/run.mjs test  [args for vitest]      (AGENT_CANVAS_SKIP_LINT=1 skips typecheck, lint, layers)
//   node scripts/run.mjs bench [orchestration|agent|paused|retrieval|starts|devserver|pipeline|model|state|streams|iteration]  (benchmarks, print tables; default: all)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...args] = process.argv.slice(2);
/** What the layer check cruises (also `npm run lint:layers`). */
/** How often `start` checks that its parent still lives (a reparented launcher stops the stack). */
const PARENT_POLL_MS = 500;
const LAYER_CHECKED = ['src', 'server', 'workflows', 'activities', 'api', 'test', 'bench', 'scripts'];

if (command === 'start') {
  ensureDeps(root);
  process.exitCode = await runStart(args);
} else if (command === 'test') {
  ensureDeps(root);
  process.exitCode = await runTests(args);
} else if (command === 'bench') {
  ensureDeps(root);
  const benches = {
    orchestration: 'bench/orchestration.ts',
    agent: 'bench/agentRounds.ts',
    paused: 'bench/pausedRuns.ts',
    retrieval: 'bench/retrieval.ts',
    starts: 'bench/starts.ts',
    devserver: 'bench/devServerTuning.ts',
    pipeline: 'bench/pipeline.ts',
    model: 'bench/modelClient.ts',
    state: 'bench/stateCopy.ts',
    streams: 'bench/streamCapacity.ts',
    iteration: 'bench/iteration.ts',
  };
  const chosen = args.length > 0 ? args : Object.keys(benches);
  for (const name of chosen) {
    if (!benches[name]) {
      console.error(`unknown benchmark ${name}; choose from ${Object.keys(benches).join(', ')}`);
      process.exitCode = 2;
      break;
    }
    process.exitCode = await exitCodeOf(spawn(process.execPath, ['--expose-gc', '--import', 'tsx', benches[name]], { cwd: root, stdio: 'inherit' }));
    if (process.exitCode !== 0) break;
  }
} else {
  console.error('usage: node scripts/run.mjs start|test|bench [args...]');
  process.exitCode = 2;
}

/**
 * Runs server/main.ts under tsx and resolves to its exit code. The whole stack stops with the
 * launcher, however the launcher is told to stop:
 * - SIGINT, SIGTERM or SIGHUP here is passed on once; server/main.ts then drains and stops what it started;
 * - the launcher's own parent dying (`npm start`'s npm gets SIGTERM, kills its `sh`, and nothing
 *   reaches us) counts as SIGTERM: a supervisor stopping npm must stop the stack;
 * - the launcher dying without a word (SIGKILL) closes the IPC channel, which server/main.ts
 *   watches and takes as a stop signal;
 * - once server/main.ts has exited, anything still in its process group (a dev server it could
 *   not stop) is killed, so no port stays taken.
 */
function runStart(mainArgs) {
  // Its own process group (POSIX), so a terminal Ctrl-C reaches it once, through us, rather than
  // once from the terminal plus once more from each of npm and this script.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...mainArgs], {
    cwd: root,
    // `npm start` runs its worker as a Worker Deployment version (docs/ARCHITECTURE.md, "Deploying workflow changes").
    env: { ...process.env, WORKER_VERSIONING: process.env.WORKER_VERSIONING ?? '1' },
    // The IPC channel carries no messages: its closing tells the server that we are gone.
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: process.platform !== 'win32',
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const lastForwarded = new Map();
  const forward = (signal) => {
    // npm re-sends the terminal's signal to us; forward one per burst.
    const now = Date.now();
    if (now - (lastForwarded.get(signal) ?? 0) < 1000) return;
    lastForwarded.set(signal, now);
    if (running()) child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphanWatch);
    forward('SIGTERM');
  }, PARENT_POLL_MS);
  // If this script dies some other way, do not leave the server running in its own group.
  process.on('exit', () => running() && child.kill('SIGTERM'));
  return exitCodeOf(child).then((code) => {
    clearInterval(orphanWatch);
    if (child.pid && process.platform !== 'win32') {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is empty: everything stopped by itself
      }
    }
    return code;
  });
}

/** typecheck → lint → layers → tests, stopping at the first failure; resolves to that step's exit code. */
async function runTests(vitestArgs) {
  const skipLint = process.env.AGENT_CANVAS_SKIP_LINT === '1';
  const steps = [
    ...(skipLint
      ? []
      : [
          { name: 'typecheck', bin: ['typescript', 'tsc'], args: ['--noEmit', '-p', '.'] },
          { name: 'lint', bin: ['eslint', 'eslint'], args: ['.'] },
          // One formatting (prettier.config.mjs); `npm run format` fixes what this reports.
          { name: 'format', bin: ['prettier', 'prettier'], args: ['--check', '--log-level', 'warn', '.'] },
          // Layers and import cycles (rules in .dependency-cruiser.mjs).
          { name: 'layers', bin: ['dependency-cruiser', 'depcruise'], args: [...LAYER_CHECKED, '--config', '.dependency-cruiser.mjs'] },
        ]),
    // Without arguments, the tests that boot nothing run first and alone (seconds, no Temporal
    // dev server: a broken core fails fast), then the integration tiers together (vitest.config.ts).
    // With arguments (files, `--project pure` for the fast tier alone, ...), one vitest run with those.
    ...(vitestArgs.length === 0
      ? [
          { name: 'pure tests', bin: ['vitest', 'vitest'], args: ['run', '--project', 'pure'] },
          { name: 'integration tests', bin: ['vitest', 'vitest'], args: ['run', '--project', 'services', '--project', 'temporal'] },
        ]
      : [{ name: 'tests', bin: ['vitest', 'vitest'], args: ['run', ...vitestArgs] }]),
  ];
  if (skipLint) console.log('== typecheck and lint skipped (AGENT_CANVAS_SKIP_LINT=1)');
  const timings = [];
  let code = 0;
  for (const step of steps) {
    console.log(`== ${step.name}`);
    const started = Date.now();
    // Node + the package's bin script directly: no npx startup cost, no npm noise.
    const child = spawn(process.execPath, [binScript(...step.bin), ...step.args], { cwd: root, stdio: 'inherit' });
    code = await exitCodeOf(child);
    timings.push(`${step.name} ${((Date.now() - started) / 1000).toFixed(1)}s${code === 0 ? '' : ` (failed, exit ${code})`}`);
    if (code !== 0) break;
  }
  console.log(`== ${code === 0 ? 'passed' : 'FAILED'}: ${timings.join(', ')}`);
  return code;
}

/** Path of a package's bin script, as declared in its package.json. */
function binScript(packageName, binName) {
  const packageDir = path.join(root, 'node_modules', packageName);
  const { bin } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  return path.join(packageDir, typeof bin === 'string' ? bin : bin[binName]);
}

/** Resolves to the child's exit code; a signal death maps to 128 + signal number, like a shell. */
function exitCodeOf(child) {
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`agent-canvas: could not start ${child.spawnfile}: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? 128 + (os.constants.signals[signal] ?? 0)));
  });
}
