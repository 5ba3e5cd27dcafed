/**
 * Temporal for integration tests: a client on the shared dev server and a worker per test on a
 * task queue of its own, running the real activities against a real store and HTTP peers.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, DefaultLogger } from '@temporalio/worker';
import { inject } from 'vitest';
import { createActivities } from '../../activities';
import { ledgerSinks } from '../../activities/reuseSink';
import { scheduleActivities } from '../../server/boot/scheduledRuns';
import { DEFAULT_RUN_SETTINGS } from '../../src/core/runSettings';
import type { ChunkIndex } from '../../src/io/knowledge/chunkIndex';
import { silentLogger } from '../../src/io/log';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import type { Store } from '../../src/io/store/contract';
import { workflowBundlerOptions, workflowsPath, type WorkflowBundleSettings } from '../../src/io/temporal/bundle';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let runtimeQuieted = false;

/** Keeps the SDK's own logs to warnings, so test output stays readable. */
function quietRuntime(): void {
  if (runtimeQuieted) return;
  runtimeQuieted = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed in this process.
  }
}

export interface TemporalHandles {
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}

export async function connectTemporal(): Promise<TemporalHandles> {
  quietRuntime();
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    client: new Client({ connection }),
    connection,
    nativeConnection,
    close: async () => {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

export interface RunningWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

export async function startWorker(opts: {
  nativeConnection: NativeConnection;
  store: Store;
  llmBaseUrl: string;
  taskQueue?: string;
  env?: Record<string, string>;
  chunkIndex?: ChunkIndex;
  /** Names of activities the worker leaves out (a call nobody carries out). */
  without?: string[];
  /** Bundle workflows/ with these settings instead of running the suite's shared bundle (the default settings). */
  bundle?: WorkflowBundleSettings;
  /** How long a shutdown lets running activities finish before it cancels them (the SDK's default otherwise). */
  shutdownGraceMs?: number;
  /** Workflows kept in memory between tasks; 0 replays every run from its history at each task. */
  maxCachedWorkflows?: number;
  /** Carry out agent schedules' actions, starting runs through this client (server/boot/scheduledRuns.ts). */
  scheduleClient?: Client;
}): Promise<RunningWorker> {
  const taskQueue = opts.taskQueue ?? `test-${randomUUID()}`;
  const scheduling = opts.scheduleClient
    ? scheduleActivities({ store: opts.store, client: opts.scheduleClient, taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } })
    : {};
  const worker = await Worker.create({
    connection: opts.nativeConnection,
    taskQueue,
    ...(opts.bundle
      ? { workflowsPath: workflowsPath(projectRoot), bundlerOptions: workflowBundlerOptions(opts.bundle) }
      : { workflowBundle: { codePath: inject('workflowBundlePath') } }),
    activities: Object.fromEntries(
      Object.entries(
        createActivities({
          store: opts.store,
          llm: llmSettingsFromEnv({ LLM_BASE_URL: opts.llmBaseUrl, LLM_API_KEY: 'test' }),
          log: silentLogger,
          heartbeatMs: 200,
          env: opts.env ?? {},
          chunkIndex: opts.chunkIndex,
        }),
      )
        .concat(Object.entries(scheduling))
        .filter(([name]) => !opts.without?.includes(name)),
    ),
    // Heartbeats must reach the server quickly for cancellation to land within a second or two.
    maxHeartbeatThrottleInterval: '500 milliseconds',
    defaultHeartbeatThrottleInterval: '500 milliseconds',
    ...(opts.shutdownGraceMs !== undefined ? { shutdownGraceTime: opts.shutdownGraceMs } : {}),
    ...(opts.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: opts.maxCachedWorkflows } : {}),
    sinks: ledgerSinks(opts.store, silentLogger),
  });
  const running = worker.run();
  return {
    taskQueue,
    stop: async () => {
      worker.shutdown();
      await running;
    },
  };
}
