/**
 * Submitting UserFillUp inputs to a paused run (our /runs/{id}/inputs route and RAGFlow's
 * completion with a paused session): a Temporal update whose validator checks the values against
 * the form. The update id names the pause, so a repeated submission is answered by Temporal with
 * the first one's outcome instead of being applied twice.
 */
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { FieldProblem } from '../../src/core/components/forms';
import type { InputsSubmission } from '../../src/core/engine';
import { AppError } from '../../src/errors';
import type { RunRecord } from '../../src/io/store/contract';
import { FORM_INVALID, progressQuery, submitInputsUpdate } from '../../workflows/definitions';
import type { AppDeps } from '../deps';

/** Where the continuation of a resumed run starts in its event log (exclusive). */
export interface Resumed {
  after: { seq: number; sub: number };
}

/**
 * The pause a run waits at: its `user_inputs` event. The workflow is the truth, the run row a
 * copy: when a worker dies (or starves) in the workflow task that applies an answer, the task's
 * local activities may already have marked the row `running` while Temporal drops the answer and
 * the workflow still waits. A row that says `running` is therefore checked against the
 * workflow's `progress` query, so the answer can be given again (found by the chaos run).
 */
export async function currentPause(deps: AppDeps, run: RunRecord): Promise<{ seq: number }> {
  if (run.status === 'running') {
    const seq = await workflowPauseSeq(deps, run);
    if (seq !== null) return { seq };
  }
  if (run.status !== 'paused') throw new AppError('CONFLICT', `The run is ${run.status}, not waiting for input`, { task_id: run.id });
  const pause = await deps.store.events.lastNamed(run.id, 'user_inputs');
  if (!pause) throw new AppError('CONFLICT', 'The run is not waiting for input yet; try again in a moment', { task_id: run.id });
  return { seq: pause.seq };
}

/** The event seq of the form the workflow itself waits for, or null (not paused, gone, or no answer). */
async function workflowPauseSeq(deps: AppDeps, run: RunRecord): Promise<number | null> {
  try {
    const progress = await deps.temporal.workflow.getHandle(run.workflow_id).query(progressQuery);
    const seq = progress.status === 'paused' ? progress.pendingInputs?.event_seq : undefined;
    return typeof seq === 'number' ? seq : null;
  } catch {
    // No worker answered, or the workflow is gone: the row's status decides.
    return null;
  }
}

export async function submitRunInputs(deps: AppDeps, run: RunRecord, submission: InputsSubmission): Promise<Resumed> {
  const pause = await currentPause(deps, run);
  try {
    const accepted = await deps.temporal.workflow
      .getHandle(run.workflow_id)
      .executeUpdate(submitInputsUpdate, { args: [submission], updateId: `inputs-${run.id}-${pause.seq}` });
    return { after: { seq: accepted.seq, sub: 0 } };
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === FORM_INVALID) {
      const problems = (cause.details?.[0] as FieldProblem[] | undefined) ?? [];
      // RAGFlow's routes answer HTTP 200 with a code; a refused form is also an HTTP 400 there.
      throw new AppError('BAD_REQUEST', `Invalid inputs: ${cause.message}`, {
        problems: problems.map((p) => ({ path: p.field ? `$.inputs.${p.field}` : '$.inputs', message: p.message })),
        task_id: run.id,
        ragflowHttpStatus: 400,
      });
    }
    if (err instanceof WorkflowNotFoundError) throw new AppError('CONFLICT', 'The run has ended; it no longer waits for input', { task_id: run.id });
    throw err;
  }
}
