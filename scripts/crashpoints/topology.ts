/**
 * What the crash-point harness stands on, all on loopback: a Temporal dev server of its own
 * (file-persisted, restartable), a throwaway PostgreSQL, the scripted model and the web search stand-in, and
 * agent-canvas as two processes of the real entry point (server/main.ts): a worker with the
 * crash-point hook preloaded (scripts/crashpoints-preload.mjs, hook.ts) and an API. Either can be killed and started again with
 * the same environment.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLER_OPTIONS, workflowsPath } from '../../src/io/temporal/bundle';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { connectOrStartTemporal, startDevServer } from '../../src/io/temporal/devServer';
import { appEnv, freePort, spawnApp, waitHealthy, type AppProcess } from '../../test/helpers/appProcess';
import { startPostgres } from '../../test/helpers/postgres';
import { startScriptedLlm, type ScriptedLlm } from '../../test/helpers/scriptedLlm';
import { startWebSearchServer, type WebSearchServer } from '../../test/helpers/webSearchServer';
import { WORKFLOW_HOOK } from './control';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The worker's shutdown bound: half of it is the grace running activities get (server/main.ts). */
export const SHUTDOWN_TIMEOUT_MS = 3_000;

export interface Member {
  readonly role: 'api' | 'worker';
  readonly base: string;
  app: AppProcess | null;
  /** Output of its earlier processes, for failure messages. */
  history: string;
}

export interface Topology {
  databaseUrl: string;
  temporalAddress: string;
  /** The folder the harness arms points in (control.ts). */
  controlDir: string;
  llm: ScriptedLlm;
  web: WebSearchServer;
  worker: Member;
  api: Member;
  auth: Record<string, string>;
  /** Stops the Temporal server and starts it again on its file (null: a server we did not start). */
  restartTemporal: (() => Promise<void>) | null;
  start(m: Member): Promise<void>;
  /** Restarts the member with these settings on top of its own (none: its own again), for the references that need them. */
  restartWith(m: Member, extra: Record<string, string>): Promise<void>;
  /** SIGKILLs the member (when up) and waits until it is gone. */
  kill(m: Member): Promise<void>;
  /** Resolves once the member's process has exited by itself (true), or false after `ms`. */
  exited(m: Member, ms: number): Promise<boolean>;
  stop(): Promise<void>;
}

async function waitForBanner(app: AppProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!app.output().includes('agent-canvas is running')) {
    if (app.proc.exitCode !== null || app.proc.signalCode !== null) throw new Error(`the worker exited before it ran:\n${app.output().slice(-3000)}`);
    if (Date.now() > until) throw new Error(`the worker did not start within ${timeoutMs} ms:\n${app.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startTopology(opts: { temporalAddress?: string; say: (line: string) => void }): Promise<Topology> {
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    const dataRoot = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-crashpoints-'));
    stops.push(async () => rmSync(dataRoot, { recursive: true, force: true }));
    // A Temporal server of our own, persisted to a file, so a stop can restart it (what it kept
    // only in memory is lost then, as in production). Without the CLI: the one given, not restarted.
    const cli = await obtainTemporalCli({ projectRoot: root });
    let temporalAddress: string;
    let restartTemporal: (() => Promise<void>) | null = null;
    if (cli) {
      const settings = { cliPath: cli.path, dbFile: path.join(dataRoot, 'temporal.db'), port: await freePort() };
      let server = await startDevServer(settings);
      stops.push(() => server.stop());
      temporalAddress = server.address;
      restartTemporal = async () => {
        await server.stop();
        // Its port or database file can take a moment to be free again.
        for (let attempt = 1; ; attempt++) {
          try {
            server = await startDevServer(settings);
            return;
          } catch (err) {
            if (attempt >= 4) throw err;
            await sleep(2_000);
          }
        }
      };
    } else {
      temporalAddress =
        opts.temporalAddress ?? (await connectOrStartTemporal({ projectRoot: root, persistent: false, ui: false, log: () => undefined })).address;
    }
    const pg = await startPostgres();
    if ('skipped' in pg) throw new Error(`the crash-point harness needs PostgreSQL (its API and worker are two processes): ${pg.skipped}`);
    stops.push(() => pg.stop());
    const [llm, web] = await Promise.all([startScriptedLlm(), startWebSearchServer()]);
    stops.push(
      () => llm.stop(),
      () => web.stop(),
    );
    const controlDir = path.join(dataRoot, 'control');
    mkdirSync(controlDir);
    opts.say('bundling the workflows with the crash-point interceptor…');
    const { code } = await bundleWorkflowCode({
      workflowsPath: workflowsPath(root),
      workflowInterceptorModules: [WORKFLOW_HOOK],
      ...WORKFLOW_BUNDLER_OPTIONS,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined, log: () => undefined },
    });
    const bundlePath = path.join(dataRoot, 'workflow-bundle.js');
    writeFileSync(bundlePath, code);

    const apiKey = `crashpoints-${randomUUID()}`;
    const shared = {
      DATABASE_URL: pg.url,
      TASK_QUEUE: `crashpoints-${randomUUID()}`,
      // Processes sharing a database share the secret API keys are hashed with.
      API_KEY_SECRET: randomBytes(32).toString('base64url'),
      METRICS_PORT: '0',
      TAVILY_BASE_URL: web.url,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      // A killed worker's call is retried within seconds; not so short that a loaded machine's late heartbeat looks like a death.
      ACTIVITY_HEARTBEAT_TIMEOUT_MS: '3000',
    };
    const envFor = async (role: Member['role']) => {
      const port = await freePort();
      const env = appEnv({
        port,
        dataDir: path.join(dataRoot, role),
        apiKey,
        llmUrl: llm.url,
        temporalAddress,
        extra: { AGENT_CANVAS_ROLE: role, ...shared, ...(role === 'worker' ? { CRASHPOINT_DIR: controlDir, CRASHPOINT_BUNDLE: bundlePath } : {}) },
      });
      return { base: `http://127.0.0.1:${port}`, env };
    };
    const workerSetup = await envFor('worker');
    const apiSetup = await envFor('api');
    const envs = new Map<Member, Record<string, string>>();
    const worker: Member = { role: 'worker', base: workerSetup.base, app: null, history: '' };
    const api: Member = { role: 'api', base: apiSetup.base, app: null, history: '' };
    envs.set(worker, workerSetup.env);
    envs.set(api, apiSetup.env);
    const ownEnvs = new Map(envs);

    const topology: Topology = {
      databaseUrl: pg.url,
      temporalAddress,
      controlDir,
      llm,
      web,
      worker,
      api,
      auth: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      restartTemporal,
      async start(m) {
        if (m.app) return;
        const hook = m.role === 'worker' ? ['--import', './scripts/crashpoints-preload.mjs'] : [];
        const app = spawnApp(['--import', 'tsx', ...hook, 'server/main.ts'], envs.get(m)!);
        m.app = app;
        if (m.role === 'worker') await waitForBanner(app, 180_000);
        else await waitHealthy(m.base, app, 180_000);
      },
      async restartWith(m, extra) {
        await topology.kill(m);
        envs.set(m, { ...ownEnvs.get(m)!, ...extra });
        await topology.start(m);
      },
      async kill(m) {
        const app = m.app;
        if (!app) return;
        m.app = null;
        await app.kill();
        m.history += app.output();
      },
      async exited(m, ms) {
        const app = m.app;
        if (!app) return true;
        const gone = app.proc.exitCode !== null || app.proc.signalCode !== null;
        const ok = gone || (await Promise.race([new Promise<boolean>((r) => app.proc.once('exit', () => r(true))), sleep(ms).then(() => false)]));
        if (ok) {
          m.app = null;
          m.history += app.output();
        }
        return ok;
      },
      stop: async () => {
        await Promise.all([topology.kill(api), topology.kill(worker)]);
        await stopAll();
      },
    };
    stops.push(() => Promise.all([topology.kill(api), topology.kill(worker)]));
    opts.say('starting the worker (crash-point hook preloaded) and the API…');
    await topology.start(worker);
    await topology.start(api);
    return topology;
  } catch (err) {
    await stopAll();
    throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
