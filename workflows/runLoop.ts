/**
 * The loop every run workflow runs (a canvas run, a sub-agent run): record the step's events,
 * carry out its calls as activities, feed the results to the engine, until the run ends. It also
 * owns the run's cancel signal, progress query and continue-as-new, so each workflow only says
 * how its run starts and how it ends.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import { cancelRun, checkPauseInputs, expirePause, progressOf, resumeRun, submitInputs, type CompiledCanvas, type InputsSubmission, type StepResult } from '../src/engine';
import { describeFieldProblems } from '../src/components/forms';
import type { NestTarget } from '../src/engine/events';
import { upgradeState, type RunStatus } from '../src/engine/state';
import { RUN_STATUS_KEY } from '../src/temporal/searchAttributes';
import { executeCalls } from './calls';
import { cancelSignal, FORM_INVALID, progressQuery, submitInputsUpdate, type RunCheckpoint, type RunSettings } from './definitions';

// Event writes are short database inserts: local activities, retried until the store answers.
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

export interface RunLoopOptions<R> {
  runId: string;
  settings: RunSettings;
  /** The status already recorded for the first step (a continued run), so it is not recorded twice. */
  recordedStatus: RunStatus | null;
  /** A child run: its events are mirrored into this slot of the parent's log too. */
  mirror?: NestTarget;
  /** Ends the run with its final step (runs non-cancellable when the run was cancelled through Temporal). */
  finalize: (step: StepResult) => Promise<R>;
  /** Starts a fresh execution of this workflow from the checkpoint (never returns). */
  continueAsNew: (checkpoint: RunCheckpoint) => Promise<never>;
}

function ended(step: StepResult): boolean {
  return step.status === 'finished' || step.status === 'failed' || step.status === 'canceled';
}

/** The first step of a continued run: nothing new to record, the same calls to make. */
export function resumedStep(checkpoint: RunCheckpoint): StepResult {
  const state = upgradeState(checkpoint.state);
  return { state, events: [], calls: checkpoint.calls, status: state.status };
}

/**
 * Whether to hand over to a fresh execution before the next calls: when Temporal suggests it, or
 * when the history passes the run's own event budget (it grows with every round of an agent).
 */
function historyFull(settings: RunSettings): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= settings.continueAsNewAfterEvents;
}

export async function runLoop<R>(canvas: CompiledCanvas, first: StepResult, options: RunLoopOptions<R>): Promise<R> {
  const { runId, settings } = options;
  const engineOptions = { maxSteps: settings.maxSteps };
  let step = first;

  let cancelReason: string | null = null;
  const callScope = new CancellationScope();
  setHandler(cancelSignal, (reason?: string) => {
    if (cancelReason !== null) return; // a repeated cancel is harmless
    cancelReason = reason?.trim() || 'canceled by request';
    callScope.cancel();
  });
  setHandler(progressQuery, () => progressOf(step.state));

  // Form values for a pause: checked by the validator (a bad submission never enters history),
  // then taken by the loop. One submission per pause: a repeat is refused, not applied twice.
  let submission: InputsSubmission | null = null;
  setHandler(
    submitInputsUpdate,
    (s) => {
      submission = s;
      return { seq: step.state.pause?.seq ?? step.state.seq };
    },
    {
      validator: (s) => {
        if (submission !== null) throw ApplicationFailure.create({ type: FORM_INVALID, nonRetryable: true, message: 'inputs for this pause were already submitted' });
        const check = checkPauseInputs(step.state, s.inputs ?? {});
        if (!check.ok) throw ApplicationFailure.create({ type: FORM_INVALID, nonRetryable: true, message: describeFieldProblems(check.problems), details: [check.problems] });
      },
    },
  );

  /** Waits at a pause for inputs, a cancel or the timeout; returns the step that follows. */
  const waitForInputs = async (paused: StepResult): Promise<StepResult> => {
    const timeoutS = paused.state.pause?.timeoutS ?? settings.pauseTimeoutS ?? null;
    const ready = () => submission !== null || cancelReason !== null;
    const arrived = timeoutS !== null ? await condition(ready, timeoutS * 1000) : (await condition(ready), true);
    if (cancelReason !== null) return paused;
    if (!arrived) return expirePause(canvas, paused.state, timeoutS, Date.now(), engineOptions);
    const s = submission!;
    submission = null;
    const next = submitInputs(canvas, paused.state, s, Date.now(), engineOptions);
    return 'error' in next ? paused : next;
  };

  let recordedStatus = options.recordedStatus;
  const record = async (s: StepResult) => {
    const changed = s.status !== recordedStatus;
    if (s.events.length > 0 || changed) await local.appendRunEvents({ runId, events: s.events, status: changed ? s.status : undefined, ...(options.mirror ? { mirror: options.mirror } : {}) });
    if (changed) upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: s.status }]);
    recordedStatus = s.status;
  };

  try {
    for (;;) {
      // The last events are written by finalize, after the session is handed back: a client
      // that sees workflow_finished can start the next turn at once.
      if (ended(step)) break;
      await record(step);
      if (cancelReason !== null) {
        step = cancelRun(canvas, step.state, cancelReason, Date.now());
        continue;
      }
      if (step.status === 'paused') {
        // A pause of seconds or days: the workflow waits here, holding no activity or worker.
        step = await waitForInputs(step);
        continue;
      }
      if (step.status !== 'running' || step.calls.length === 0) break;
      if (historyFull(settings)) return await options.continueAsNew({ state: step.state, calls: step.calls });
      let results;
      try {
        results = await callScope.run(() => executeCalls(step.calls, settings));
      } catch (err) {
        if (!(isCancellation(err) && cancelReason !== null)) throw err;
        step = cancelRun(canvas, step.state, cancelReason, Date.now());
        continue;
      }
      step = cancelReason !== null ? cancelRun(canvas, step.state, cancelReason, Date.now()) : resumeRun(canvas, step.state, results, Date.now(), engineOptions);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancellation requested through Temporal (the UI, a parent run): record it, then end as Canceled.
    await CancellationScope.nonCancellable(async () => {
      step = cancelRun(canvas, step.state, 'the workflow was cancelled through Temporal', Date.now());
      upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: step.state.status }]);
      await options.finalize(step);
    });
    throw err;
  }
  upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: step.state.status }]);
  return options.finalize(step);
}
