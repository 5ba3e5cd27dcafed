/**
 * Whether a worker that can carry a run's workflow tasks is polling now: asked before a form
 * answer is sent, so an answer for a run whose workers are all gone fails fast (503) instead of
 * waiting in Temporal until one returns (issue 38, item 4: over 330 s without an answer).
 *
 * A pinned run (Worker Deployments) needs a worker of its own version. The server lists every
 * version's pollers on the queue, each with its deployment options (dev server 1.29.1, checked):
 * when all fresh pollers name a version and none is the run's, no worker can take its answer.
 * A poller that names no version leaves it open ('unknown'): the answer's bounded wait (inputs.ts,
 * FORM_ANSWER_WAIT_MS) decides then. A worker stopped a moment ago still counts until its last poll is
 * POLLER_FRESH_MS old; the bounded wait covers that minute too.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { RunRecord } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';

export type WorkerPolls =
  /** A worker that can take the run's tasks polls. */
  | { kind: 'some' }
  /** Pollers are there, but some name no version: whether one can take the run's tasks is not known. */
  | { kind: 'unknown' }
  /** Nobody polls the run's task queue for workflow tasks, or (a pinned run) only workers of other versions do. */
  | { kind: 'none'; version: string }
  /** The workflow is closed or gone. */
  | { kind: 'ended' };

/** A live idle worker re-polls within the server's long-poll timeout (a minute). */
const POLLER_FRESH_MS = 75_000;
const DESCRIBE_MS = 3_000;
const WORKFLOW_TASKS = 1;
const NORMAL_QUEUE = 1;
const PINNED = 1;

export async function workerPolls(deps: AppDeps, run: Pick<RunRecord, 'workflow_id'>): Promise<WorkerPolls> {
  const within = <T>(fn: () => Promise<T>) => deps.temporal.connection.withDeadline(Date.now() + DESCRIBE_MS, fn);
  let taskQueue: string;
  let version: { deploymentName: string; buildId: string } | null = null;
  try {
    const described = await within(() => deps.temporal.workflow.getHandle(run.workflow_id).describe());
    if (described.status.name !== 'RUNNING') return { kind: 'ended' };
    taskQueue = described.taskQueue;
    const versioning = described.raw.workflowExecutionInfo?.versioningInfo;
    const pinnedTo = versioning?.behavior === PINNED ? versioning.deploymentVersion : null;
    if (pinnedTo?.buildId) version = { deploymentName: pinnedTo.deploymentName ?? '', buildId: pinnedTo.buildId };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { kind: 'ended' };
    return { kind: 'unknown' }; // Temporal did not answer in time: the update's own bound decides
  }
  let pollers: ListedPoller[];
  try {
    const res = await within(() =>
      deps.temporal.workflowService.describeTaskQueue({
        namespace: deps.temporal.options.namespace,
        taskQueue: { name: taskQueue, kind: NORMAL_QUEUE },
        taskQueueType: WORKFLOW_TASKS,
      }),
    );
    pollers = res.pollers ?? [];
  } catch {
    return { kind: 'unknown' };
  }
  return pollersVerdict(pollers, version, Date.now());
}

/** A poller as DescribeTaskQueue lists it (the fields read here). */
export interface ListedPoller {
  lastAccessTime?: { seconds?: unknown } | null;
  deploymentOptions?: { buildId?: string | null } | null;
  workerVersionCapabilities?: { buildId?: string | null } | null;
}

/** Whether the listed pollers can take the tasks of a run pinned to `version` (null: unversioned), at `now`. */
export function pollersVerdict(pollers: ListedPoller[], version: { deploymentName: string; buildId: string } | null, now: number): WorkerPolls {
  const fresh = pollers.filter((p) => p.lastAccessTime?.seconds != null && now - Number(p.lastAccessTime.seconds) * 1000 < POLLER_FRESH_MS);
  const versionName = version ? `${version.deploymentName}:${version.buildId}` : 'unversioned';
  if (fresh.length === 0) return { kind: 'none', version: versionName };
  if (!version) return { kind: 'some' };
  const builds = fresh.map((p) => p.deploymentOptions?.buildId ?? p.workerVersionCapabilities?.buildId ?? null);
  if (builds.includes(version.buildId)) return { kind: 'some' };
  return builds.every((b) => b !== null) ? { kind: 'none', version: versionName } : { kind: 'unknown' };
}
