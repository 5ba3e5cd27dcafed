/**
 * Runs (or reuses, or connects to) the Temporal server the product needs. `startDevServer` spawns
 * `temporal server start-dev`; `connectOrStartTemporal` is the one call `npm start` and the tests
 * use: TEMPORAL_ADDRESS → the CLI `obtainTemporalCli` finds or builds; production needs no
 * `@temporalio/testing` (a dev dependency): the CLI is the dev server.
 */
import { spawn } from 'node:child_process';
import { closeSync, promises as fs, openSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { obtainTemporalCli } from './cli';
import { envPort, isPortOpen, pickFreePort, splitAddress } from './ports';
import { SEARCH_ATTRIBUTES, searchAttributeCliArgs } from '../../core/searchAttributes';

/** A reachable Temporal frontend; `stop()` ends it only when this process started it. */
export interface DevServer {
  address: string;
  uiUrl: string | null;
  namespace: string;
  stop(): Promise<void>;
}

/** Options for {@link startDevServer}. */
export interface StartDevServerOptions {
  cliPath: string;
  /** SQLite file for persistence; omitted means in-memory (state dies with the process). */
  dbFile?: string;
  ip?: string;
  /** Fixed frontend port; a healthy server already on it is reused. Omitted means a random free port. */
  port?: number;
  uiPort?: number;
  ui?: boolean;
  namespace?: string;
  /** Server output is appended here; without it the output is discarded (a tail is kept for errors). */
  logFile?: string;
  log?: (line: string) => void;
  /** Replaces {@link DEV_SERVER_TUNING} and {@link DEV_SERVER_FILE_TUNING} (benchmarks compare settings; the product never passes it). */
  tuning?: readonly string[];
  /** Task-queue fairness on ({@link FAIRNESS_TUNING}): `npm start` with TEMPORAL_DEV_FAIRNESS=on. */
  fairness?: boolean;
}

const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 250;
const STOP_GRACE_MS = 10_000;
const LOG_TAIL_CHARS = 4_000;
/** Numeric values of `temporal.api.enums.v1.IndexedValueType` (not importable without a deep import). */
const INDEXED_VALUE_TYPE: Record<string, number> = { Text: 1, Keyword: 2, Int: 3, Double: 4, Bool: 5, Datetime: 6, KeywordList: 7 };
const noop = () => {};

/**
 * Dynamic config for the dev server, each measured on its own with the bare floor harness
 * (`npm run bench -- devserver`, bench/devServerTuning.ts; figures in docs/ARCHITECTURE.md):
 * - eager activity dispatch hands a scheduled activity to the worker in the workflow task's
 *   reply, saving a matching round trip per model call (10 sequential activities 1050 → 550 ms);
 * - the history service's transfer queue (which hands every new workflow task to matching) polls
 *   at most 20 times a second by default, so a task waited up to 50 ms for its slot: at 1000 a
 *   sequential activity went 39 → 25 ms in memory.
 * Task-queue partitions (matching.numTaskqueue*Partitions=1) measured within the noise; left alone.
 */
export const DEV_SERVER_TUNING: readonly string[] = [
  '--dynamic-config-value',
  'system.enableActivityEagerExecution=true',
  '--dynamic-config-value',
  'history.transferProcessorMaxPollRPS=1000',
];

/** Task-queue fairness (Temporal 1.29's new matcher): the server dispatches the runs' fairness keys (tenants) in turn (`npm run bench -- flood`). */
export const FAIRNESS_TUNING: readonly string[] = [
  '--dynamic-config-value',
  'matching.useNewMatcher=true',
  '--dynamic-config-value',
  'matching.enableFairness=true',
];

/**
 * SQLite settings for a dev server that persists to a file (`npm start`): write-ahead log, synced
 * at checkpoints rather than at every commit. Safe against the process dying (a crash loses
 * nothing committed); an OS crash or power loss may lose the last transactions. Measured: 92 → 24
 * ms per sequential activity, 2.7 → 14.8 runs/s.
 */
export const DEV_SERVER_FILE_TUNING: readonly string[] = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

/** Starts `temporal server start-dev` and resolves once it answers health checks. */
export async function startDevServer(opts: StartDevServerOptions): Promise<DevServer> {
  const { ip = '127.0.0.1', namespace = 'default', log = noop } = opts;
  if (opts.port !== undefined) {
    const reused = await reuseRunningServer(ip, opts.port, opts.ui ? (opts.uiPort ?? opts.port + 1000) : undefined, namespace, log);
    if (reused) return reused;
  }
  const port = opts.port ?? (await pickFreePort(ip));
  const uiPort = opts.ui ? (opts.uiPort ?? (opts.port !== undefined ? port + 1000 : await pickFreePort(ip))) : undefined;
  const address = `${ip}:${port}`;
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
    ...(opts.tuning ?? DEV_SERVER_TUNING),
    ...(opts.fairness ? FAIRNESS_TUNING : []),
  ];
  if (opts.dbFile) {
    await fs.mkdir(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile, ...(opts.tuning ? [] : DEV_SERVER_FILE_TUNING));
  }
  args.push(...(uiPort !== undefined ? ['--ui-port', String(uiPort)] : ['--headless']), ...searchAttributeCliArgs());

  const started = Date.now();
  const output = await openOutput(opts.logFile);
  // Never inherit stdio: the dev server's logs would flood the user's terminal.
  const child = spawn(opts.cliPath, args, { stdio: ['ignore', output.stdio, output.stdio] });
  output.attach(child.stdout, child.stderr);
  let exitDescription: string | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      exitDescription = `failed to spawn: ${error.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      exitDescription = `exited with ${signal ?? `code ${code}`}`;
      resolve();
    });
  });
  // A server we started must not outlive us; 'exit' handlers may only do synchronous work, and kill() is.
  const killOnParentExit = () => child.kill('SIGTERM');
  process.on('exit', killOnParentExit);
  void exited.then(() => process.off('exit', killOnParentExit));
  // Let a forgotten server not keep the process alive; the 'exit' hook above still ends it.
  child.unref();

  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= stopChild(child, exited, () => exitDescription !== null));
  const describe = `temporal dev server at ${address} (pid ${child.pid})`;
  const deadline = started + READY_TIMEOUT_MS;
  while (!(await isTemporalReady(address, namespace))) {
    if (exitDescription !== null) throw new Error(`${describe} ${exitDescription} before becoming ready:\n${await output.tail()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${describe} not ready after ${READY_TIMEOUT_MS / 1000}s:\n${await output.tail()}`);
    }
    await delay(READY_POLL_MS);
  }
  const uiUrl = uiPort !== undefined ? `http://${ip}:${uiPort}` : null;
  log(`temporal: dev server ready address=${address} ui=${uiUrl ?? 'off'} db=${opts.dbFile ?? 'memory'} pid=${child.pid} startMs=${Date.now() - started}`);
  return { address, uiUrl, namespace, stop };
}

/** Where a persistent dev server keeps its state (SQLite) and its output, inside the product's data folder. */
export function devServerFiles(dataDir: string): { dbFile: string; logFile: string } {
  return { dbFile: path.join(dataDir, 'temporal.db'), logFile: path.join(dataDir, 'temporal.log') };
}

/** Connects to TEMPORAL_ADDRESS, or starts a dev server with the local (or freshly built) CLI. */
export async function connectOrStartTemporal(opts: {
  projectRoot: string;
  persistent: boolean;
  ui: boolean;
  /** The product's data folder (DATA_DIR); default `<projectRoot>/.data`. */
  dataDir?: string;
  log?: (line: string) => void;
}): Promise<DevServer> {
  const log = opts.log ?? noop;
  const external = process.env.TEMPORAL_ADDRESS;
  if (external) {
    const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
    await ensureSearchAttributes(external, namespace, log);
    log(`temporal: using external server address=${external} namespace=${namespace}`);
    return { address: external, uiUrl: process.env.TEMPORAL_UI_URL ?? null, namespace, stop: async () => {} };
  }
  const files = devServerFiles(opts.dataDir ?? path.join(opts.projectRoot, '.data'));
  const placement = opts.persistent ? { dbFile: files.dbFile, port: envPort('TEMPORAL_PORT', 7233), uiPort: envPort('TEMPORAL_UI_PORT', 8233) } : {};
  const cli = await obtainTemporalCli({ projectRoot: opts.projectRoot, log });
  if (!cli) {
    throw new Error(
      'Could not get a Temporal server. Provide one of:\n' +
        '  1. TEMPORAL_ADDRESS=host:port of a running Temporal server (optionally TEMPORAL_NAMESPACE, TEMPORAL_UI_URL);\n' +
        '  2. a Temporal CLI: TEMPORAL_CLI_PATH=/path/to/temporal, or `temporal` on PATH;\n' +
        '  3. Go (https://go.dev/dl) on PATH, so the CLI can be built with `go install` on first run.',
    );
  }
  const logFile = opts.persistent ? files.logFile : undefined;
  return startDevServer({ cliPath: cli.path, ...placement, ui: opts.ui, logFile, log, fairness: process.env.TEMPORAL_DEV_FAIRNESS === 'on' });
}

/** Registers any missing product search attributes on an existing server (they are idempotent to add). */
export async function ensureSearchAttributes(address: string, namespace: string, log: (line: string) => void = noop): Promise<void> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: '10s' });
  } catch (error) {
    throw new Error(`cannot reach Temporal at ${address}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (existing.customAttributes ?? {})));
    if (missing.length === 0) return;
    const searchAttributes = Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_VALUE_TYPE[type]]));
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    log(`temporal: registered search attributes ${missing.map(([name]) => name).join(',')} namespace=${namespace}`);
  } catch (error) {
    // Another process may have registered them between our list and add calls.
    if (/already exists/i.test(errorMessage(error)) || (isGrpcServiceError(error) && error.code === 6)) return;
    throw new Error(`could not register search attributes on ${address}: ${errorMessage(error)}`, { cause: error });
  } finally {
    await connection.close();
  }
}

/** Returns a no-op-stop handle for a healthy server already on `ip:port`, null if the port is free. */
async function reuseRunningServer(
  ip: string,
  port: number,
  uiPort: number | undefined,
  namespace: string,
  log: (line: string) => void,
): Promise<DevServer | null> {
  if (!(await isPortOpen(ip, port))) return null;
  const address = `${ip}:${port}`;
  if (!(await isTemporalReady(address, namespace))) {
    throw new Error(`port ${port} on ${ip} is taken by something that is not a healthy Temporal server; free it or choose another port (TEMPORAL_PORT)`);
  }
  await ensureSearchAttributes(address, namespace, log);
  const uiUrl = uiPort !== undefined && (await isPortOpen(ip, uiPort)) ? `http://${ip}:${uiPort}` : null;
  log(`temporal: reusing server already running address=${address} ui=${uiUrl ?? 'off'}`);
  return { address, uiUrl, namespace, stop: async () => {} };
}

/** True when the frontend answers the gRPC health check and knows the namespace. */
async function isTemporalReady(address: string, namespace: string): Promise<boolean> {
  const [host, port] = splitAddress(address);
  // A plain TCP probe first: a gRPC connect attempt to a closed port is far slower.
  if (!(await isPortOpen(host, port))) return false;
  let connection: Connection | null = null;
  try {
    connection = await Connection.connect({ address, connectTimeout: '2s' });
    const health = await connection.healthService.check({});
    if (health.status !== 1 /* SERVING */) return false;
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(noop);
  }
}

/** SIGTERM, then SIGKILL if the server has not exited within {@link STOP_GRACE_MS}. */
async function stopChild(child: ReturnType<typeof spawn>, exited: Promise<void>, hasExited: () => boolean): Promise<void> {
  if (hasExited()) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killLater = new Promise<void>((resolve) => (timer = setTimeout(() => resolve(void child.kill('SIGKILL')), STOP_GRACE_MS)));
  await Promise.race([exited, killLater.then(() => exited)]);
  clearTimeout(timer);
}

interface ServerOutput {
  stdio: number | 'pipe';
  attach(...streams: (NodeJS.ReadableStream | null)[]): void;
  tail(): Promise<string>;
}

/** Where the child's stdout/stderr go: an appended log file, or an in-memory tail that is otherwise discarded. */
async function openOutput(logFile: string | undefined): Promise<ServerOutput> {
  if (logFile) {
    await fs.mkdir(path.dirname(logFile), { recursive: true });
    const fd = openSync(logFile, 'a');
    return {
      stdio: fd,
      attach: () => closeSync(fd), // the child holds its own copy of the descriptor
      tail: async () => (await fs.readFile(logFile, 'utf8').catch(() => '')).slice(-LOG_TAIL_CHARS),
    };
  }
  let recent = '';
  return {
    stdio: 'pipe',
    attach: (...streams) => {
      for (const stream of streams) {
        stream?.on('data', (chunk: Buffer) => {
          recent = (recent + chunk.toString()).slice(-LOG_TAIL_CHARS);
        });
        // Pipes would otherwise keep the event loop alive after the caller is done.
        (stream as unknown as { unref?: () => void } | null)?.unref?.();
      }
    },
    tail: async () => recent,
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
