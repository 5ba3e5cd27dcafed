/**
 * Submitting UserFillUp inputs to a paused run (our /runs/{id}/inputs route and RAGFlow's
 * completion with a paused session): a Temporal update whose validator checks the values against
 * the form. The workflow is the truth, the run row a copy: whether the run waits, and at which
 * form, is asked of the workflow (its progress query), the row and the log only when no worker
 * answers. The update id names the pause, so an answer sent again (by the client, or by this
 * loop after a workflow task that took it was lost with its worker) is applied once: Temporal
 * answers a repeat with the first one's outcome. Nothing waits unbounded: when no worker of the
 * run takes the answer within FORM_ANSWER_WAIT_MS (api/httpLimits.ts, default 30 s) the request
 * ends in a 503 with Retry-After.
 */
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import type { FieldProblem } from '../../src/core/components/forms';
import type { InputsSubmission } from '../../src/core/engine';
import { AppError } from '../../src/errors';
import type { RunRecord } from '../../src/io/store/contract';
import { FORM_INVALID, INPUTS_NOT_WAITING, progressQuery, submitInputsUpdate } from '../../workflows/definitions';
import type { AppDeps } from '../deps';
import { DEFAULT_HTTP_LIMITS } from '../httpLimits';
import { workerPolls } from './runWorkers';

/** Where the continuation of a resumed run starts in its event log (exclusive). */
export interface Resumed {
  after: { seq: number; sub: number };
}

/** One update call's bound: a repeat re-sends it (a workflow task that took it may have died with its worker). */
const UPDATE_CALL_MS = 10_000;
/** How long the progress query may take (it needs a worker too). */
const QUERY_MS = 5_000;

const ENDED = new Set(['finished', 'failed', 'canceled']);

function notWaiting(run: RunRecord, why: string): AppError {
  return new AppError('CONFLICT', why, { task_id: run.id });
}

function unavailable(run: RunRecord, why: string): AppError {
  return new AppError('TEMPORAL_UNAVAILABLE', why, { task_id: run.id });
}

/**
 * The pause a run waits at: the seq of its `user_inputs` event. Asked of the workflow: a workflow
 * task that died after its local activities wrote could leave a row that says `running` (or more)
 * while the workflow still waits. Only when no worker answers do the row and the log decide.
 */
export async function currentPause(deps: AppDeps, run: RunRecord): Promise<{ seq: number }> {
  if (ENDED.has(run.status)) throw notWaiting(run, `The run is ${run.status}, not waiting for input`);
  const asked = await workflowPause(deps, run);
  if (asked === 'ended') throw notWaiting(run, 'The run has ended; it no longer waits for input');
  if (asked !== null) {
    if (asked.seq === null) throw notWaiting(run, 'The run is running, not waiting for input');
    return { seq: asked.seq };
  }
  if (run.status !== 'paused' && run.status !== 'running') throw notWaiting(run, `The run is ${run.status}, not waiting for input`);
  const pause = await deps.store.events.lastNamed(run.id, 'user_inputs');
  if (!pause) throw notWaiting(run, 'The run is not waiting for input yet; try again in a moment');
  return { seq: pause.seq };
}

/** Whether the run's workflow waits at a form (false also when no worker answered: the row then decides). */
export async function waitsAtForm(deps: AppDeps, run: RunRecord): Promise<boolean> {
  const asked = await workflowPause(deps, run);
  return asked !== null && asked !== 'ended' && asked.seq !== null;
}

/** What the workflow says: the form it waits at (seq null: it waits for none), 'ended', or null when no worker answered in time. */
async function workflowPause(deps: AppDeps, run: RunRecord): Promise<{ seq: number | null } | 'ended' | null> {
  try {
    const progress = await deps.temporal.connection.withDeadline(Date.now() + QUERY_MS, () =>
      deps.temporal.workflow.getHandle(run.workflow_id).query(progressQuery),
    );
    const seq = progress.status === 'paused' ? progress.pendingInputs?.event_seq : undefined;
    return { seq: typeof seq === 'number' ? seq : null };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'ended';
    return null; // no worker answered (or Temporal is out of reach): the row decides
  }
}

function formRefused(run: RunRecord, cause: ApplicationFailure): AppError {
  const problems = (cause.details?.[0] as FieldProblem[] | undefined) ?? [];
  // RAGFlow's routes answer HTTP 200 with a code; a refused form is also an HTTP 400 there.
  return new AppError('BAD_REQUEST', `Invalid inputs: ${cause.message}`, {
    problems: problems.map((p) => ({ path: p.field ? `$.inputs.${p.field}` : '$.inputs', message: p.message })),
    task_id: run.id,
    ragflowHttpStatus: 400,
  });
}

export async function submitRunInputs(deps: AppDeps, run: RunRecord, submission: InputsSubmission): Promise<Resumed> {
  if (ENDED.has(run.status)) throw notWaiting(run, `The run is ${run.status}, not waiting for input`);
  // No worker of the run's version at all: say so now instead of leaving the answer to wait for one.
  const polls = await workerPolls(deps, run);
  if (polls.kind === 'ended') throw notWaiting(run, 'The run has ended; it no longer waits for input');
  if (polls.kind === 'none')
    throw unavailable(run, `No worker of the run's version (${polls.version}) is running; the answer cannot be applied now. Retry later.`);
  const pause = await currentPause(deps, run);
  const handle = deps.temporal.workflow.getHandle(run.workflow_id);
  const options = { args: [{ ...submission, pauseSeq: pause.seq }] as [typeof submission & { pauseSeq: number }], updateId: `inputs-${run.id}-${pause.seq}` };
  // How long the answer waits for a worker of its run to take it (retried within, then 503).
  const waitMs = (deps.httpLimits ?? DEFAULT_HTTP_LIMITS).formAnswerWaitMs;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const accepted = await deps.temporal.connection.withDeadline(Math.min(deadline, Date.now() + UPDATE_CALL_MS), () =>
        handle.executeUpdate(submitInputsUpdate, options),
      );
      return { after: { seq: accepted.seq, sub: 0 } };
    } catch (err) {
      const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === FORM_INVALID) throw formRefused(run, cause);
      if (cause instanceof ApplicationFailure && cause.type === INPUTS_NOT_WAITING) throw notWaiting(run, cause.message);
      if (err instanceof WorkflowNotFoundError) throw notWaiting(run, 'The run has ended; it no longer waits for input');
      if (!(err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)) {
        if ((await workerPolls(deps, run)).kind === 'ended') throw notWaiting(run, 'The run has ended; it no longer waits for input');
        throw err;
      }
      // Not taken yet: its worker is busy, gone, or died with the task that took it. The same id
      // again either re-admits the answer or returns the outcome it already had.
      if (Date.now() >= deadline)
        throw unavailable(run, `No worker of the run took the answer within ${waitMs / 1000} s; repeat the request (an answer repeated is applied once).`);
    }
  }
}
