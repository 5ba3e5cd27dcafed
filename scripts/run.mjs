// `npm start` and `npm test` on a fresh clone: install dependencies if needed, then run.
// Plain Node ESM with builtins only, because it runs before node_modules exists.
//
//   node scripts/run.mjs start [args for server/main.ts]
//   node scripts/run.mjs test  [args for vitest]      (AGENT_CANVAS_SKIP_LINT=1 skips typecheck, lint, layers)
//   node scripts/run.mjs bench [orchestration|agent|paused|retrieval|starts|devserver|pipeline|model|state|streams|iteration|flood|scale|peers] [--flags]  (benchmarks, print tables; default: all; --flags go to each bench)
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
    flood: 'bench/flood.ts',
    scale: 'bench/scale.ts',
    peers: 'bench/peers.ts',
  };
  const flags = args.filter((a) => a.startsWith('--'));
  const names = args.filter((a) => !a.startsWith('--'));
  const chosen = names.length > 0 ? names : Object.keys(benches);
  for (const name of chosen) {
    if (!benches[name]) {
      console.error(`unknown benchmark ${name}; choose from ${Object.keys(benches).join(', ')}`);
      process.exitCode = 2;
      break;
    }
    process.exitCode = await exitCodeOf(spawn(process.execPath, ['--expose-gc', '--import', 'tsx', benches[name], ...flags], { cwd: root, stdio: 'inherit' }));
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

/**
 * The checks, then the tests, in stages: the steps of a stage run side by side (the checks and the
 * pure tests are single-threaded and short; on two cores together they take about half as long as
 * one after another), each one's output printed whole when it ends; a stage with a failure stops
 * the run. Resolves to the first failing step's exit code.
 */
async function runTests(vitestArgs) {
  const skipLint = process.env.AGENT_CANVAS_SKIP_LINT === '1';
  const checks = skipLint
    ? []
    : [
        { name: 'typecheck', bin: ['typescript', 'tsc'], args: ['--noEmit', '-p', '.'] },
        { name: 'lint', bin: ['eslint', 'eslint'], args: ['.'] },
        // One formatting (prettier.config.mjs); `npm run format` fixes what this reports.
        { name: 'format', bin: ['prettier', 'prettier'], args: ['--check', '--log-level', 'warn', '.'] },
        // Layers and import cycles (rules in .dependency-cruiser.mjs).
        { name: 'layers', bin: ['dependency-cruiser', 'depcruise'], args: [...LAYER_CHECKED, '--config', '.dependency-cruiser.mjs'] },
      ];
  // Without arguments, the tests that boot nothing run with the checks (seconds, no Temporal dev
  // server: a broken core fails before the integration tiers start), then the integration tiers
  // together (vitest.config.ts). With arguments (files, `--project pure` for the fast tier alone,
  // ...), the checks, then one vitest run with those.
  const stages =
    vitestArgs.length === 0
      ? [
          [...checks, { name: 'pure tests', bin: ['vitest', 'vitest'], args: ['run', '--project', 'pure'] }],
          [{ name: 'integration tests', bin: ['vitest', 'vitest'], args: ['run', '--project', 'services', '--project', 'temporal'] }],
        ]
      : [checks, [{ name: 'tests', bin: ['vitest', 'vitest'], args: ['run', ...vitestArgs] }]];
  if (skipLint) console.log('== typecheck and lint skipped (AGENT_CANVAS_SKIP_LINT=1)');
  const timings = [];
  let code = 0;
  for (const stage of stages.filter((steps) => steps.length > 0)) {
    const codes = await Promise.all(stage.map((step) => runStep(step, stage.length === 1, timings)));
    code = codes.find((c) => c !== 0) ?? 0;
    if (code !== 0) break;
  }
  console.log(`== ${code === 0 ? 'passed' : 'FAILED'}: ${timings.join(', ')}`);
  return code;
}

/** Runs one step; alone, its output streams; beside others, it is printed whole when it ends. */
async function runStep(step, alone, timings) {
  const started = Date.now();
  if (alone) console.log(`== ${step.name}`);
  // Node + the package's bin script directly: no npx startup cost, no npm noise.
  const child = spawn(process.execPath, [binScript(...step.bin), ...step.args], {
    cwd: root,
    stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: alone ? process.env : { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
  });
  const output = [];
  child.stdout?.on('data', (d) => output.push(d));
  child.stderr?.on('data', (d) => output.push(d));
  const code = await exitCodeOf(child);
  const took = `${((Date.now() - started) / 1000).toFixed(1)}s`;
  if (!alone) process.stdout.write(`== ${step.name} (${took})\n${Buffer.concat(output).toString()}`);
  timings.push(`${step.name} ${took}${code === 0 ? '' : ` (failed, exit ${code})`}`);
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
