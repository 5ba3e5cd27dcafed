/** The Temporal worker: the run workflow plus the activities, with heartbeats frequent enough for prompt cancels. */
import type { VersioningBehavior, WorkerDeploymentVersion } from '@temporalio/common';
import { NativeConnection, Worker, type LogLevel, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import { ledgerSinks } from '../../activities/reuseSink';
import { Client } from '@temporalio/client';
import type { RunSettings } from '../../src/core/runSettings';
import { scheduleActivities } from './scheduledRuns';
import { workflowBundlerOptions, workflowsPath } from '../../src/io/temporal/bundle';
import { activityMetricsInterceptor } from '../../src/io/metrics/activityRetries';
import { installTemporalRuntime } from './telemetry';

/**
 * The runtime without SDK metrics (installTemporalRuntime in boot/telemetry.ts, which
 * server/main.ts calls, says why each setting): for entry points that need no /metrics.
 */
export function quietTemporalRuntime(level: LogLevel = 'WARN'): void {
  installTemporalRuntime({ level, sdkMetricsPort: null });
}

/** Options every worker of the product runs with (the benchmarks use them too). */
export const WORKER_TUNING = {
  // A cancel reaches a running activity on its next heartbeat: keep them about a second apart.
  maxHeartbeatThrottleInterval: '1 second',
  defaultHeartbeatThrottleInterval: '1 second',
  // The first task of every run evaluates the workflow bundle's modules anew (~30 ms of CPU), so
  // a burst of starts queues on the workflow thread. A second thread (the SDK's default is one
  // with reusable contexts) measured on 2 cores, 200 starts at once: workflow.start answered →
  // first task p50 15 s → 1–3 s, first SSE event p50 29–45 s → 18 s (bench/starts.ts).
  workflowThreadPoolSize: 2,
} satisfies Partial<WorkerOptions>;

/**
 * How much one worker runs at once. The SDK's default of 100 activity slots was neither set nor
 * said: with 200 concurrent 30-second model streams exactly 100 got their first token at once and
 * the other 100 waited ~30 s for a slot (bench/streamCapacity.ts). A model stream is I/O bound
 * (an open HTTP response, a store write per batch of tokens), so a worker holds many: 1000 slots.
 * Workflow tasks are CPU (two threads, WORKER_TUNING): the SDK's 40. Local activities (a run's
 * closing bookkeeping, inside a workflow task): the SDK's 100. Fixed slots rather than Temporal's
 * resource-based tuner: it hands out slots above its minimum one per ramp interval (50 ms), so a
 * burst of 200 streams would still be spread over seconds, and it reads the whole host's memory
 * and CPU, which other processes share. WORKER_MAX_ACTIVITIES and friends change them.
 */
export const WORKER_CAPACITY = { activities: 1000, workflowTasks: 40, localActivities: 100 } as const;

/**
 * The SDK options for a worker's slots: the configured ones over {@link WORKER_CAPACITY}. Workflow
 * tasks at once never exceed the workflow cache (the SDK would cut them down with a warning).
 */
export function workerSlots(
  capacity: { activities?: number; workflowTasks?: number; localActivities?: number } = {},
  maxCachedWorkflows?: number,
): Partial<WorkerOptions> {
  const workflowTasks = capacity.workflowTasks ?? WORKER_CAPACITY.workflowTasks;
  return {
    maxConcurrentActivityTaskExecutions: capacity.activities ?? WORKER_CAPACITY.activities,
    maxConcurrentWorkflowTaskExecutions: maxCachedWorkflows ? Math.min(workflowTasks, maxCachedWorkflows) : workflowTasks,
    maxConcurrentLocalActivityExecutions: capacity.localActivities ?? WORKER_CAPACITY.localActivities,
  };
}

export async function createWorker(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  projectRoot: string;
  activities: ActivityDeps;
  maxCachedWorkflows?: number;
  /** Slots (WORKER_MAX_*); unset ones are {@link WORKER_CAPACITY}. */
  capacity?: { activities?: number; workflowTasks?: number; localActivities?: number };
  shutdownGraceMs?: number;
  /** Workflow stack traces on (src/io/temporal/bundle.ts); default off. */
  stackTraces?: boolean;
  /**
   * Poll as this Worker Deployment version (src/io/temporal/deployment.ts). Omitted: an
   * unversioned worker, as the tests' workers are. Each workflow declares pinned or auto-upgrade
   * (`setWorkflowOptions` in workflows/); the default covers any that does not.
   */
  deployment?: { version: WorkerDeploymentVersion; defaultBehavior?: VersioningBehavior };
  /** A workflow bundle built beforehand (tests run other code as another version); default: bundle workflows/ now. */
  workflowBundlePath?: string;
  /** Run settings of the runs agent schedules start (server/boot/scheduledRuns.ts); absent: the worker carries out no schedule. */
  schedules?: { settings: RunSettings };
}): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  // Scheduled runs start as the API starts runs, through a client on this worker's connection.
  const scheduling = opts.schedules
    ? scheduleActivities({
        store: opts.activities.store,
        client: new Client({ connection, namespace: opts.namespace }),
        taskQueue: opts.taskQueue,
        settings: opts.schedules.settings,
      })
    : {};
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundlePath
      ? { workflowBundle: { codePath: opts.workflowBundlePath } }
      : { workflowsPath: workflowsPath(opts.projectRoot), bundlerOptions: workflowBundlerOptions({ stackTraces: opts.stackTraces ?? false }) }),
    ...(opts.deployment
      ? {
          workerDeploymentOptions: {
            version: opts.deployment.version,
            useWorkerVersioning: true,
            // Pinned unless a workflow says otherwise: replaying a run on the code that started it is always safe.
            defaultVersioningBehavior: opts.deployment.defaultBehavior ?? 'PINNED',
          },
        }
      : {}),
    activities: { ...createActivities(opts.activities), ...scheduling },
    interceptors: { activity: [activityMetricsInterceptor] },
    // Model calls a replay reused instead of calling again, for the cost ledger.
    sinks: ledgerSinks(opts.activities.store, opts.activities.log),
    // A cached workflow costs ~2 MB of worker memory (its own copy of the engine's modules);
    // bounding the cache bounds memory: a paused run that leaves it is replayed when it resumes.
    ...(opts.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: opts.maxCachedWorkflows } : {}),
    ...WORKER_TUNING,
    ...workerSlots(opts.capacity, opts.maxCachedWorkflows),
    // On shutdown, running activities get this long to finish before they are cancelled (and
    // retried by another worker); the process's shutdown bound covers it.
    ...(opts.shutdownGraceMs !== undefined ? { shutdownGraceTime: opts.shutdownGraceMs } : {}),
  });
  return { worker, connection };
}

/** Stops polling and waits for the worker's run loop to end; safe to call in any state, and more than once. */
export async function drainWorker(worker: Worker, running: Promise<void>): Promise<void> {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running;
}
