/**
 * Keeps the run rows true to Temporal. A run row says `running` from just before its workflow is
 * started; an API that dies in between, a workflow terminated or timed out by hand or by Temporal
 * (e.g. a payload over its limits), or a finalize that never ran would otherwise leave the row
 * running forever, its session locked and its followers waiting. The reconciler describes each
 * running/paused row older than a grace period; a workflow that is gone or closed outside our
 * finalize fails the row, writes the terminal event followers end at, and releases the session.
 * A workflow that runs is asked where it is (its progress query): a row that says `running` while
 * the workflow waits at a form (or the other way round) takes the workflow's word. That is what a
 * workflow task that wrote through its local activities and then died could leave behind.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../../src/io/log';
import { rejectRun } from '../../src/core/engine';
import { runEvent } from '../../src/core/engine/runEvents';
import type { RunRecord, Store } from '../../src/io/store/contract';
import { progressQuery } from '../../workflows/definitions';

export interface ReconcilerDeps {
  store: Store;
  client: Client;
  log: Logger;
  /** Rows younger than this (ms since their last update) are left alone: their start may be under way. */
  graceMs: number;
  /** Rows described per pass. */
  batch: number;
  /** Runs after each pass: starts the messages queued behind sessions whose turn ended (turns/messageQueue.ts watchWaitingQueues). */
  afterPass?: () => Promise<unknown>;
}

export type RunCheck = 'active' | 'ended' | 'repaired';

/**
 * Fails a run that will not end by itself: the row (only if still active), the terminal event
 * (so followers end) and the session. A run that never started also takes back the user message
 * of its turn, so a refused start leaves nothing half-stored.
 */
export async function failStrandedRun(store: Store, run: RunRecord, error: string, opts: { neverStarted: boolean }): Promise<boolean> {
  if (!(await store.runs.failIfActive(run.id, error))) return false;
  const last = await store.runs.lastEvent(run.id);
  const now = Date.now();
  if (!last) await store.events.append(run.id, rejectRun({ runId: run.id, messageId: run.id, inputs: null }, error, now));
  else if (!last.terminal) {
    await store.events.append(run.id, [
      runEvent({ seq: last.seq + 1, sub: 0, message_id: last.message_id, created_at: Math.floor(now / 1000), task_id: run.id }, 'run_failed', { error }),
    ]);
  }
  if (run.session_id) {
    if (opts.neverStarted) await store.sessions.abandonTurn(run.session_id, run.id, run.create_time / 1000);
    else await store.sessions.release(run.session_id, run.id);
  }
  return true;
}

/** What Temporal says of the run's workflow, and the repair when it is not running. */
export async function reconcileRun(deps: Pick<ReconcilerDeps, 'store' | 'client'>, run: RunRecord): Promise<RunCheck> {
  let status: string;
  let idle: boolean;
  try {
    const described = await deps.client.workflow.getHandle(run.workflow_id).describe();
    status = described.status.name;
    // Nothing under way (no activity, child or workflow task): the workflow waits, at a form or a timer.
    idle = !described.raw.pendingWorkflowTask && (described.raw.pendingActivities ?? []).length === 0 && (described.raw.pendingChildren ?? []).length === 0;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    // A sub-agent's row is recorded by its parent before the parent starts it: while the parent
    // runs, the start may still come (a worker down longer than the grace period).
    if (run.parent_run_id && (await parentStillRuns(deps, run.parent_run_id))) return 'active';
    const error = 'The run never started: its workflow does not exist (the API stopped while starting it)';
    return (await failStrandedRun(deps.store, run, error, { neverStarted: true })) ? 'repaired' : 'ended';
  }
  // A running row whose workflow waits: asked where (a paused run's workflow is not asked: it is often out of the worker's cache).
  if (status === 'RUNNING') return run.status === 'running' && idle && (await matchWorkflowStatus(deps, run)) ? 'repaired' : 'active';
  // COMPLETED: our finalize ran before the workflow returned, so the row has ended (a no-op here).
  const error =
    status === 'COMPLETED'
      ? 'The run ended without recording its result'
      : `The run's workflow was ${status.toLowerCase().replace('_', ' ')} outside the run (by Temporal or an operator)`;
  return (await failStrandedRun(deps.store, run, error, { neverStarted: false })) ? 'repaired' : 'ended';
}

/** How long the progress query may take (no worker answers it while none polls). */
const PROGRESS_QUERY_MS = 3_000;

/** Sets the row of a running workflow to the status the workflow reports; true when it was wrong. */
async function matchWorkflowStatus(deps: Pick<ReconcilerDeps, 'store' | 'client'>, run: RunRecord): Promise<boolean> {
  let reported: string;
  try {
    const progress = await deps.client.connection.withDeadline(Date.now() + PROGRESS_QUERY_MS, () =>
      deps.client.workflow.getHandle(run.workflow_id).query(progressQuery),
    );
    reported = progress.status;
  } catch {
    return false; // no worker answered: nothing to go by until the next pass
  }
  if ((reported !== 'running' && reported !== 'paused') || reported === run.status) return false;
  return deps.store.runs.correctStatus(run.id, { status: run.status, updateTime: run.update_time }, reported);
}

async function parentStillRuns(deps: Pick<ReconcilerDeps, 'store' | 'client'>, parentRunId: string): Promise<boolean> {
  const parent = await deps.store.runs.getById(parentRunId);
  if (!parent || (parent.status !== 'running' && parent.status !== 'paused')) return false;
  try {
    return (await deps.client.workflow.getHandle(parent.workflow_id).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

export interface ReconcilePass {
  checked: number;
  repaired: number;
  releasedSessions: number;
}

/** One pass over up to `batch` rows after `cursor`; returns the cursor of the next pass (null: start over). */
export async function reconcileOnce(
  deps: ReconcilerDeps,
  cursor: { time: number; id: string } | null = null,
): Promise<ReconcilePass & { next: { time: number; id: string } | null }> {
  const before = Date.now() - deps.graceMs;
  const rows = await deps.store.runs.unsettled({ before, after: cursor, limit: deps.batch });
  let repaired = 0;
  for (const run of rows) {
    try {
      if ((await reconcileRun(deps, run)) === 'repaired') {
        repaired += 1;
        deps.log.warn('run reconciled', { runId: run.id, workflowId: run.workflow_id });
      }
    } catch (err) {
      deps.log.warn('could not reconcile run', { runId: run.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  const releasedSessions = await deps.store.sessions.releaseOrphans(before, deps.batch);
  if (releasedSessions > 0) deps.log.warn('released sessions held by ended runs', { count: releasedSessions });
  await deps.afterPass?.().catch((err: unknown) => deps.log.warn('queued messages not started', { error: err instanceof Error ? err.message : String(err) }));
  const lastRow = rows[rows.length - 1];
  const next = rows.length === deps.batch && lastRow ? { time: lastRow.update_time, id: lastRow.id } : null;
  return { checked: rows.length, repaired, releasedSessions, next };
}

export interface RunningReconciler {
  /** Resolves when the first pass (the one at start-up) is over. */
  firstPass: Promise<void>;
  stop(): void;
}

/** A pass now and every `intervalMs`; the timer does not keep the process alive. */
export function startRunReconciler(deps: ReconcilerDeps & { intervalMs: number }): RunningReconciler {
  let cursor: { time: number; id: string } | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const pass = async (): Promise<void> => {
    try {
      cursor = (await reconcileOnce(deps, cursor)).next;
    } catch (err) {
      deps.log.warn('run reconciliation failed', { error: err instanceof Error ? err.message : String(err) });
    }
    if (!stopped) {
      timer = setTimeout(() => void pass(), deps.intervalMs);
      timer.unref();
    }
  };
  const firstPass = pass();
  return {
    firstPass,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
