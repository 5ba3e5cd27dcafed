/**
 * Cancelling a run: the workflow's `cancel` signal (harmless when repeated or too late); and, for
 * a run that must let go of its session now, terminating it (recorded as failed) and releasing
 * the session.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { RunRecord } from '../../src/io/store/contract';
import { cancelSignal } from '../../workflows/definitions';
import type { AppDeps } from '../deps';
import { failStrandedRun } from './runReconciler';
import { cancelWaitingRun } from './admission';

/**
 * Terminates the run holding a session (if it is still open), records it failed with `reason`
 * (its followers end) and releases the session.
 */
export async function terminateAndRelease(deps: AppDeps, sessionId: string, holderRunId: string, reason: string): Promise<void> {
  const run = await deps.store.runs.getById(holderRunId);
  if (run && (run.status === 'running' || run.status === 'paused')) {
    try {
      await deps.temporal.workflow.getHandle(run.workflow_id).terminate(reason);
    } catch (err) {
      // Already closed or never started: nothing to stop, the row is repaired below.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    await failStrandedRun(deps.store, run, reason, { neverStarted: false });
  }
  await deps.store.sessions.release(sessionId, holderRunId);
}

/** Sends the cancel signal; false when the run had already ended. */
export async function cancelRunById(deps: AppDeps, run: RunRecord, reason: string): Promise<boolean> {
  if (run.status !== 'running' && run.status !== 'paused') return false;
  // A run waiting for its tenant's capacity has no workflow yet: it is canceled in the store.
  if (await cancelWaitingRun(deps, run, reason)) return true;
  try {
    await deps.temporal.workflow.getHandle(run.workflow_id).signal(cancelSignal, reason);
    return true;
  } catch (err) {
    // The workflow closed between our read and the signal: nothing left to cancel.
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
