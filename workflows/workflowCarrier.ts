/**
 * The workflow's carrier of the shared run loop (src/core/engine/loop.ts), for every run workflow (a
 * canvas run, a sub-agent run): calls become activities and child workflows, events go to the
 * store with a step's call or through local activities (./stepRecorder.ts), pauses wait with `condition()`. It also owns the run's cancel
 * signal, inputs update, progress query and continue-as-new, so each workflow only says how its
 * run starts and how it ends.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import type { FinalizeRunInput } from '../activities/runs';
import {
  cancelRun,
  checkPauseInputs,
  progressOf,
  type CallResult,
  type CompiledCanvas,
  type EngineCall,
  type InputsSubmission,
  type StepResult,
} from '../src/core/engine';
import { historyFull, runLoop, type PauseOutcome, type RunCarrier } from '../src/core/engine/loop';
import { carryingItems, type ReusedItems } from '../src/core/engine/parallelItems';
import { describeFieldProblems } from '../src/core/components/forms';
import type { NestTarget } from '../src/core/engine/runEvents';
import type { RunStatus } from '../src/core/engine/state';
import { upgradeState } from '../src/core/engine/stateUpgrade';
import { RUN_STATUS_KEY } from '../src/core/searchAttributes';
import { carryCall } from './callCarrier';
import { steerableAgents, steerRefusal, type SteerMessage } from '../src/core/engine/steer';
import { StepRecorder } from './stepRecorder';
import { FORM_FOLLOW_UP_PATCH, waitFollowingUp } from './pauseFollowUp';
import { pauseFollowUpOf } from '../src/core/engine/pauseFollowUp';
import {
  cancelSignal,
  FORM_INVALID,
  INPUTS_NOT_WAITING,
  progressQuery,
  STEER_REFUSED,
  steerMessageUpdate,
  submitInputsUpdate,
  type RunCheckpoint,
  type RunSettings,
} from './definitions';

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});
const localBookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * The patch under which an answered form's continuation is written only once the answer is in
 * the workflow's history. An update is accepted only when the workflow task that ran its handler
 * completes; until then Temporal holds it in memory, and loses it when that task fails (its worker
 * died or stalled past the task timeout) and the server's copy is cleared (a stale completion,
 * a cache eviction, a restart) with no caller left to send it again. The task's local activities
 * had meanwhile written the continuation's events, marked the row running or even finished the
 * run: the workflow still waited for the form while the store said otherwise, and the API refused
 * the answer given again (issue 30, item 3; three runs of fifty in the chaos run). Under the patch
 * the task that takes the answer writes nothing: it ends on a timer of 1 ms, so the answer is
 * recorded with it, and the continuation is written by the next task, which every retry replays
 * from the same history (same seqs, same events).
 */
export const INPUTS_CONFIRMED_PATCH = 'inputs-confirmed-before-continuation';

/** The patch under which a run is closed by a local activity (histories before it close with an activity). */
export const FINALIZE_LOCAL_PATCH = 'finalize-run-local-activity';

/**
 * Closes a run (its row, its session, its last events): a local activity, run inside the
 * workflow task that ends the run, so the workflow completes in that same task instead of
 * scheduling an activity and waiting for one more task after it (measured: one workflow task
 * and one activity round trip less per run, bench/orchestration.ts). Runs recorded before the
 * patch replay their activity.
 */
export function finalizeRun(input: FinalizeRunInput, revision2 = false): Promise<void> {
  if (revision2 || patched(FINALIZE_LOCAL_PATCH)) return localBookkeeping.finalizeRun(input);
  // An activity's input is kept in history: batch snapshots never go there.
  const { snapshots: _left, ...rest } = input;
  return bookkeeping.finalizeRun(rest);
}

/**
 * The patch under which a model call refused for a budget (BUDGET_EXCEEDED, activities/meteredLlm.ts)
 * fails the run with `run_failed` naming the budget, instead of being a node error the node's
 * exception handling may absorb. Asked only when such a refusal arrives, so other runs record no marker.
 */
export const BUDGET_STOP_PATCH = 'budget-exceeded-fails-run';

/** The error a run fails with when one of `results` is a budget refusal (under {@link BUDGET_STOP_PATCH}), else null. */
function budgetStop(results: CallResult[]): string | null {
  const refused = results.find((r) => !r.ok && r.code === 'BUDGET_EXCEEDED');
  if (!refused || refused.ok || !patched(BUDGET_STOP_PATCH)) return null;
  return `BUDGET_EXCEEDED: ${refused.error}`;
}

/**
 * The patch under which messages steered into the run (message_policy steer) are filed for its
 * running Agents, with a `message_steered` event. Asked only when a steered message is filed, so
 * other runs record no marker.
 */
export const MESSAGE_STEER_PATCH = 'message-steer';

export interface WorkflowRunOptions<R> {
  runId: string;
  settings: RunSettings;
  /** The status already recorded for the first step (a continued run, a run its start recorded), so it is not recorded twice. */
  recordedStatus: RunStatus | null;
  /** Started at revision 2 (workflows/definitions.ts, RUN_REVISION): patched branches are taken without asking. */
  revision2?: boolean;
  /** A child run: its events are mirrored into this slot of the parent's log too. */
  mirror?: NestTarget;
  /** Keep batch snapshots for forks (a top-level canvas run; src/core/engine/snapshots.ts). */
  keepSnapshots?: boolean;
  /** A fork inside a parallel Iteration's item: the items before it, answered with the source's values. */
  reuseItems?: ReusedItems;
  /** A replay with tools frozen: answers tool calls from the source's journal (./frozenTools.ts). */
  frozen?: (call: EngineCall) => Promise<CallResult> | null;
  /** Ends the run with its final step (runs non-cancellable when the run was cancelled through Temporal). */
  finalize: (step: StepResult) => Promise<R>;
  /** Starts a fresh execution of this workflow from the checkpoint (never returns). */
  continueAsNew: (checkpoint: RunCheckpoint) => Promise<never>;
}

/** The first step of a continued run: nothing new to record, the same calls to make. */
export function resumedStep(checkpoint: RunCheckpoint): StepResult {
  const state = upgradeState(checkpoint.state);
  return { state, events: [], calls: checkpoint.calls, status: state.status };
}

export async function runInWorkflow<R>(canvas: CompiledCanvas, first: StepResult, options: WorkflowRunOptions<R>): Promise<R> {
  const { runId, settings } = options;
  const engineOptions = { maxSteps: settings.maxSteps, maxParallel: settings.maxParallel, snapshots: options.keepSnapshots === true };
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
  /** The pause whose answer the loop took (it stays the state's pause until the answer's step): a second answer to it is refused. */
  let answeredPause: number | null = null;
  setHandler(
    submitInputsUpdate,
    ({ pauseSeq: _answers, ...s }) => {
      submission = s;
      return { seq: step.state.pause?.seq ?? step.state.events.lastSeq };
    },
    {
      // Validators run for new updates only, never on replay: what they refuse never enters history.
      validator: (s) => {
        const pauseSeq = step.state.pause?.seq ?? null;
        if (submission !== null || (pauseSeq !== null && pauseSeq === answeredPause))
          throw ApplicationFailure.create({ type: INPUTS_NOT_WAITING, nonRetryable: true, message: 'inputs for this pause were already submitted' });
        if (s.pauseSeq !== undefined && s.pauseSeq !== pauseSeq)
          throw ApplicationFailure.create({
            type: INPUTS_NOT_WAITING,
            nonRetryable: true,
            message: `the run no longer waits for the form of event ${s.pauseSeq}`,
          });
        const check = checkPauseInputs(step.state, s.inputs ?? {});
        if (!check.ok)
          throw ApplicationFailure.create({
            type: FORM_INVALID,
            nonRetryable: true,
            message: describeFieldProblems(check.problems),
            details: [check.problems],
          });
      },
    },
  );

  // Messages steered in (message_policy steer), filed by the loop before the next results go back.
  let steered: SteerMessage[] = [];
  const steerIds = new Set<string>();
  setHandler(
    steerMessageUpdate,
    (m) => {
      // An id taken before is not filed again, whatever Temporal remembers of its update (its dedup is per execution; so is this set).
      if (!steerIds.has(m.id)) steered.push(m);
      steerIds.add(m.id);
      return { component_ids: steerableAgents(step.state) };
    },
    {
      validator: (m) => {
        if (typeof m?.id !== 'string' || typeof m.text !== 'string' || m.text.trim() === '')
          throw ApplicationFailure.create({ type: STEER_REFUSED, nonRetryable: true, message: 'a steered message needs an id and a text' });
        if (steerIds.has(m.id)) return;
        const refusal = cancelReason !== null ? 'the run is being canceled' : steerRefusal(step.state);
        if (refusal !== null) throw ApplicationFailure.create({ type: STEER_REFUSED, nonRetryable: true, message: refusal });
      },
    },
  );

  const recorder = new StepRecorder(runId, options.mirror, options.recordedStatus, options.revision2 === true);
  const carrier: RunCarrier<R> = {
    now: () => Date.now(),
    record: (s) => recorder.record(s),
    carry: (call) =>
      // A frozen call writes nothing: events handed to it stay pending for the next write.
      options.frozen?.(call)?.then((result) => (recorder.settled(call, false), result)) ??
      carryCall(call, settings, recorder.eventsFor(call), runId).then((result) => {
        recorder.settled(call, result.ok);
        return result;
      }),
    guard: (round) => callScope.run(round),
    isCancellation,
    cancelReason: () => cancelReason,
    // A pause of seconds or days: the workflow waits here, holding no activity or worker.
    waitAtPause: async (paused): Promise<PauseOutcome> => {
      const timeoutS = paused.state.pause?.timeoutS ?? settings.pauseTimeoutS ?? null;
      const ready = () => submission !== null || cancelReason !== null;
      const followUp = pauseFollowUpOf(canvas, paused.state);
      if (followUp && patched(FORM_FOLLOW_UP_PATCH)) {
        // Reminders and the escalation: each timer that fires ends this wait; the loop records it and waits again.
        const fired = await waitFollowingUp(canvas, runId, paused.state, followUp, timeoutS, ready);
        if (fired && cancelReason === null) return fired;
      } else {
        const arrived = timeoutS !== null ? await condition(ready, timeoutS * 1000) : (await condition(ready), true);
        if (!arrived && cancelReason === null) return { kind: 'expired', waitedS: timeoutS };
      }
      if (cancelReason !== null) return { kind: 'canceled' };
      const s = submission!;
      submission = null;
      answeredPause = paused.state.pause?.seq ?? null;
      // The answer is confirmed (in history) before anything of its continuation is written.
      if (patched(INPUTS_CONFIRMED_PATCH)) await sleep(1);
      return { kind: 'inputs', submission: s };
    },
    shouldHandOver: () => {
      const info = workflowInfo();
      return historyFull({ suggested: info.continueAsNewSuggested, length: info.historyLength }, settings.continueAsNewAfterEvents);
    },
    handOver: async (checkpoint) => {
      await recorder.flush();
      return options.continueAsNew(checkpoint);
    },
    stopAfter: budgetStop,
    takeSteered: () => {
      if (steered.length === 0 || !patched(MESSAGE_STEER_PATCH)) return [];
      const taken = steered;
      steered = [];
      return taken;
    },
    observe: (s) => {
      step = s;
    },
  };

  try {
    // A parallel Iteration's items run here, their calls carried like the run's own (no step events of theirs).
    const end = await runLoop(
      canvas,
      first,
      carryingItems(canvas, carrier, engineOptions, (call) => carryCall(call, settings), options.reuseItems),
      engineOptions,
    );
    if (end.kind === 'handedOver') return end.value;
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancellation requested through Temporal (the UI, a parent run): record it, then end as Canceled.
    await CancellationScope.nonCancellable(async () => {
      step = cancelRun(canvas, step.state, 'the workflow was cancelled through Temporal', Date.now());
      upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: step.state.status }]);
      await options.finalize(recorder.closing(step));
    });
    throw err;
  }
  upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: step.state.status }]);
  return options.finalize(recorder.closing(step));
}
