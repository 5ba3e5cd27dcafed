/**
 * A pause that reminds and escalates (UserFillUp `remind_after`, `escalate_after`;
 * src/core/engine/pauseFollowUp.ts): the workflow waits for the answer or the next of its timers,
 * all durable Temporal timers counted from when the pause began. A reminder is the
 * `sendFormReminder` activity (retried; a 4xx is not); its outcome goes back to the loop, which
 * records `form_reminded` and waits again; the escalation and the expiry end the wait.
 *
 * While it waits the workflow holds no activity and no thread: the worker may evict it from its
 * cache, and the server keeps the timers; when one fires the workflow is replayed from history on
 * whichever worker takes the task (docs/ARCHITECTURE.md, "Long pauses").
 */
import { ActivityFailure, ApplicationFailure, condition, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import type { PauseOutcome } from '../src/core/engine/loop';
import type { CompiledCanvas } from '../src/core/engine/compile';
import { nextFollowUp, type PauseFollowUp } from '../src/core/engine/pauseFollowUp';
import type { RunState } from '../src/core/engine/state';

/** The patch under which a paused form reminds and escalates; asked only of pauses that have either, so other runs record no marker. */
export const FORM_FOLLOW_UP_PATCH = 'form-remind-escalate';

const reminders = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

function failureText(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Waits for `ready` (an answer, a cancel) or the pause's next timer. Null when `ready` came first;
 * else what the timer brought.
 */
export async function waitFollowingUp(
  canvas: CompiledCanvas,
  runId: string,
  state: RunState,
  plan: PauseFollowUp,
  timeoutS: number | null,
  ready: () => boolean,
): Promise<PauseOutcome | null> {
  const pause = state.pause!;
  const next = nextFollowUp(plan, pause, timeoutS, Date.now());
  if (next === null) return (await condition(ready), null);
  // A timer already due (a replay after a long outage) still yields once, so an answer given meanwhile wins.
  if (await condition(ready, Math.max(1, next.atMs - Date.now()))) return null;
  if (next.kind === 'expire') return { kind: 'expired', waitedS: timeoutS };
  if (next.kind === 'escalate') return { kind: 'escalated', waitedS: plan.escalate!.afterS, goto: plan.escalate!.goto };
  const remind = plan.remind!;
  const request = {
    runId,
    componentId: remind.componentId,
    paramsPath: [...(canvas.origins[remind.componentId] ?? ['components', remind.componentId, 'obj', 'params'])],
    attempt: next.attempt,
    max: remind.max,
    channel: remind.channel,
    tips: pause.tips,
    fields: pause.form,
    pauseSeq: pause.seq,
  };
  const base = { kind: 'reminded' as const, componentId: remind.componentId, attempt: next.attempt, channel: remind.channel };
  try {
    await reminders.sendFormReminder(request);
    return { ...base, delivered: true };
  } catch (err) {
    // A reminder that could not go out is recorded, not a failure of the run: it still waits.
    return { ...base, delivered: false, error: failureText(err) };
  }
}
