/**
 * Runs RAGFlow's own REST test suite (infiniflow/ragflow `test/testcases/test_http_api/` and
 * `test/testcases/restful_api/`) against this API, and writes a summary per resource with the
 * failures grouped by their first error line. See test/ragflow-suite/README.md.
 *
 *   npm run ragflow:rest [-- [resource...] [--level p1|p2|p3] [--timeout S] [--verbose] [--keep-data] [-- pytest args]]
 *
 * RAGFlow's tests are extracted from the mirror into .tools/ragflow-rest/suite (git-ignored, never
 * committed); only their login fixture is replaced (our API key) and their host address set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pickFreePort } from '../../src/io/temporal/ports';
import { ensureVenv } from '../helpers/pythonVenv';
import { EXCLUDED, RESOURCES, DESELECTED, resourceOf } from './resources';
import { extractSuite, suiteDir } from './suite';
import { readJunit, readLastResponses, summarize, type Summary } from './summary';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = path.join(root, '.tools', 'ragflow-rest');

const PACKAGES = [
  'pytest',
  'pytest-asyncio',
  'pytest-timeout',
  'requests',
  'requests-toolbelt',
  'hypothesis',
  'openpyxl',
  'pillow',
  'python-docx',
  'python-pptx',
  'reportlab',
];

interface Options {
  resources: string[];
  level: string;
  timeoutS: number;
  verbose: boolean;
  keepData: boolean;
  pytestArgs: string[];
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { resources: [], level: 'p3', timeoutS: 240, verbose: false, keepData: false, pytestArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      opts.pytestArgs = argv.slice(i + 1);
      break;
    } else if (a === '--level') opts.level = argv[++i]!;
    else if (a === '--timeout') opts.timeoutS = Number(argv[++i]);
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--keep-data') opts.keepData = true;
    else if (a === '--help' || a === '-h') {
      console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
      process.exit(0);
    } else if (a in RESOURCES) opts.resources.push(a);
    else if (a.startsWith('-')) opts.pytestArgs.push(a);
    else {
      console.error(`unknown resource ${a}; choose from ${Object.keys(RESOURCES).join(', ')}`);
      process.exit(2);
    }
  }
  if (opts.resources.length === 0) opts.resources = Object.keys(RESOURCES);
  return opts;
}

interface Server {
  base: string;
  apiKey: string;
  stop(): Promise<void>;
}

/** Starts `server/main.ts` (what `npm start` runs) on a free port with a throwaway DATA_DIR and the offline demo model. */
async function startServer(dataDir: string, logFile: string): Promise<Server> {
  const [port, temporalPort, temporalUiPort] = [await pickFreePort(), await pickFreePort(), await pickFreePort()];
  const apiKey = `ragflow-rest-${randomBytes(12).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {};
  // No model provider, database or Temporal of the caller's: the demo model, PGlite and a dev server in DATA_DIR.
  for (const [k, v] of Object.entries(process.env)) {
    if (/(_API_KEY|_BASE_URL|^DATABASE_URL|^TEMPORAL_ADDRESS|^LLM_|^EMBEDDING_|^RERANK_|^SEARCH_|^OPENSEARCH_|^API_KEY_SECRET)$/.test(k)) continue;
    if (/^(LLM_|EMBEDDING_|RERANK_|OPENSEARCH_|SEARCH_)/.test(k)) continue;
    env[k] = v;
  }
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEY: apiKey,
    // Its own Temporal dev server and task queue: a server on the default port (someone's `npm start`) would be reused.
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(temporalUiPort),
    TASK_QUEUE: `ragflow-rest-${randomBytes(4).toString('hex')}`,
    LOAD_EXAMPLES: 'false',
    LOG_LEVEL: 'warn',
    // The suite sends unknown keys on purpose, from one address, faster than the failed-key throttle allows.
    AUTH_FAILURE_LIMIT: '0',
  });
  const out = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}); see ${logFile}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`the server did not become healthy in 120 s; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    base,
    apiKey,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function pytestTargets(resources: string[]): string[] {
  return resources.flatMap((r) => RESOURCES[r]!.files.map((f) => `test/testcases/${f}`));
}

/** Runs pytest, writing its output to `logFile` and a progress line per 25 tests to stdout. */
function runPytest(python: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, verbose: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-m', 'pytest', ...args], { cwd: suiteDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = createWriteStream(logFile);
    let done = 0;
    let failed = 0;
    let partial = '';
    const onData = (d: Buffer) => {
      out.write(d);
      if (verbose) process.stdout.write(d);
      partial += d.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const m = / (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/.exec(line);
        if (!m || !line.includes('::')) continue;
        done++;
        if (m[1] === 'FAILED' || m[1] === 'ERROR') failed++;
        if (!verbose && done % 25 === 0) process.stdout.write(`  ${done} tests run, ${failed} failed or errored\n`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => {
      out.end();
      resolve(code ?? 1);
    });
  });
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  // Each run has its own folder (several people may measure at once in one checkout).
  const runDir = path.join(work, 'runs', `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  mkdirSync(runDir, { recursive: true });
  const log = (line: string) => console.log(`[ragflow:rest] ${line}`);

  const [venv, commit] = await Promise.all([ensureVenv({ name: 'ragflow-rest', packages: PACKAGES, log }), extractSuite()]);
  log(`RAGFlow tests from commit ${commit.slice(0, 12)} in ${path.relative(root, suiteDir)}`);

  const external = process.env.RAGFLOW_HOST && process.env.RAGFLOW_API_KEY;
  const dataDir = mkdtempSync(path.join(runDir, 'data-'));
  let server: Server;
  if (external) {
    server = { base: process.env.RAGFLOW_HOST!.replace(/\/$/, ''), apiKey: process.env.RAGFLOW_API_KEY!, stop: async () => {} };
    log(`using the server at ${server.base} (RAGFLOW_HOST)`);
  } else {
    log('starting the server (server/main.ts, demo model, throwaway DATA_DIR)...');
    server = await startServer(dataDir, path.join(runDir, 'server.log'));
    log(`server at ${server.base}`);
  }

  const junit = path.join(runDir, 'junit.xml');
  const lastResponses = path.join(runDir, 'last-responses.jsonl');
  rmSync(junit, { force: true });
  const args = [
    ...pytestTargets(opts.resources),
    '--level',
    opts.level,
    `--junitxml=${junit}`,
    '-o',
    'junit_family=xunit1',
    '-p',
    'no:cacheprovider',
    '-p',
    'last_response_plugin',
    '--color=no',
    `--timeout=${opts.timeoutS}`,
    ...DESELECTED.flatMap((id) => ['--deselect', id]),
    ...opts.pytestArgs,
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST_ADDRESS: server.base,
    RAGFLOW_API_KEY: server.apiKey,
    API_PROXY_SCHEME: 'python',
    // Their configs.py refuses to start without these; no test here calls those providers.
    ZHIPU_AI_API_KEY: 'unused',
    SILICONFLOW_API_KEY: 'unused',
    PYTHONDONTWRITEBYTECODE: '1',
    // Our plugin (last_response_plugin.py) records the request behind each failure.
    PYTHONPATH: [path.dirname(fileURLToPath(import.meta.url)), process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
    AGENT_CANVAS_LAST_RESPONSES: lastResponses,
  };
  log(`pytest --level ${opts.level} over: ${opts.resources.join(', ')} (log: ${path.relative(root, path.join(runDir, 'pytest.log'))})`);
  const started = Date.now();
  let code: number;
  try {
    code = await runPytest(venv.python, args, env, path.join(runDir, 'pytest.log'), opts.verbose);
  } finally {
    await server.stop();
    if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
  }
  if (!existsSync(junit)) {
    console.error(`pytest wrote no results (exit ${code}); see ${path.join(runDir, 'pytest.log')}`);
    process.exitCode = 1;
    return;
  }
  // The previous run over the same resources and level, for the changes shown in the summary.
  const key = `${[...opts.resources].sort().join('+')}-${opts.level}`;
  const previousFile = path.join(work, 'last', `${key}.json`);
  const previous = existsSync(previousFile) ? (JSON.parse(readFileSync(previousFile, 'utf8')) as Summary) : null;
  const responses = existsSync(lastResponses) ? readLastResponses(readFileSync(lastResponses, 'utf8')) : new Map();
  const summary = summarize(readJunit(readFileSync(junit, 'utf8')), {
    lastResponses: responses,
    commit,
    level: opts.level,
    resources: opts.resources,
    seconds: Math.round((Date.now() - started) / 1000),
    resourceOf,
    excluded: EXCLUDED,
    deselected: DESELECTED,
    previous,
  });
  const json = JSON.stringify(summary.data, null, 2);
  mkdirSync(path.dirname(previousFile), { recursive: true });
  writeFileSync(previousFile, json);
  for (const dir of [runDir, work]) {
    writeFileSync(path.join(dir, 'summary.md'), summary.markdown);
    writeFileSync(path.join(dir, 'summary.json'), json);
  }
  // The first full run is kept as the baseline.
  const baseline = path.join(work, `baseline-${opts.level}.json`);
  if (opts.resources.length === Object.keys(RESOURCES).length && opts.pytestArgs.length === 0 && !existsSync(baseline)) writeFileSync(baseline, json);
  console.log(summary.markdown);
  log(`summary in ${path.relative(root, path.join(runDir, 'summary.md'))} (also the latest in ${path.relative(root, work)}/summary.md)`);
  // Failing tests are the expected state while the contract is incomplete: exit 0 unless pytest itself broke.
  process.exitCode = code <= 1 ? 0 : code;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
