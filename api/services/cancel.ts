/** Cancelling a run: the workflow's `cancel` signal (harmless when repeated or too late). */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { RunRecord } from '../../src/io/store/contract';
import { cancelSignal } from '../../workflows/definitions';
import type { AppDeps } from '../deps';

/** Sends the cancel signal; false when the run had already ended. */
export async function cancelRunById(deps: AppDeps, run: RunRecord, reason: string): Promise<boolean> {
  if (run.status !== 'running' && run.status !== 'paused') return false;
  try {
    await deps.temporal.workflow.getHandle(run.workflow_id).signal(cancelSignal, reason);
    return true;
  } catch (err) {
    // The workflow closed between our read and the signal: nothing left to cancel.
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
