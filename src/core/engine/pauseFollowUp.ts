/**
 * A pause's follow-ups (UserFillUp `remind_after` / `escalate_after`, components/formFollowUp.ts):
 * what the paused forms ask for, and which timer is next. Pure: the workflow waits for the timer
 * it names (workflows/pauseFollowUp.ts) and replays to the same answer.
 */
import { followUpOf, remindChannel, type FormFollowUpParams } from '../components/formFollowUp';
import { copyJson } from '../dsl/jsonCopy';
import type { CompiledCanvas } from './compile';
import { resumeRun, type EngineOptions, type StepResult } from './run';
import type { PauseState, RunState } from './state';
import { newStep } from './step';

export interface PauseFollowUp {
  /** The form whose reminders go out (the first of the pause that has any). */
  remind: { componentId: string; everyS: number; max: number; channel: 'webhook' | 'email' } | null;
  /** The forms escalate after the shortest `escalate_after` among them. */
  escalate: { afterS: number; componentIds: string[]; goto: string[] } | null;
}

function followUpParams(canvas: CompiledCanvas, id: string): FormFollowUpParams | null {
  const node = canvas.nodes[id];
  return node?.type === 'UserFillUp' ? followUpOf(node.params) : null;
}

/** What the paused forms of `state` ask for while nobody answers; null when nothing. */
export function pauseFollowUpOf(canvas: CompiledCanvas, state: RunState): PauseFollowUp | null {
  const pause = state.pause;
  if (!pause) return null;
  let remind: PauseFollowUp['remind'] = null;
  let escalate: PauseFollowUp['escalate'] = null;
  for (const id of pause.componentIds) {
    const p = followUpParams(canvas, id);
    if (!p) continue;
    const channel = remindChannel(p);
    if (!remind && p.remind_after !== null && channel && p.remind_max > 0) remind = { componentId: id, everyS: p.remind_after, max: p.remind_max, channel };
    if (p.escalate_after !== null && p.escalate_goto.length > 0) {
      if (!escalate || p.escalate_after < escalate.afterS) escalate = { afterS: p.escalate_after, componentIds: [id], goto: [...p.escalate_goto] };
      else if (p.escalate_after === escalate.afterS) {
        escalate.componentIds.push(id);
        escalate.goto.push(...p.escalate_goto.filter((g) => !escalate!.goto.includes(g)));
      }
    }
  }
  return remind || escalate ? { remind, escalate } : null;
}

/** The next timer of a pause: a reminder (its number), the escalation, or the wait's expiry; null when none is left. */
export type NextFollowUp = { kind: 'remind'; attempt: number; atMs: number } | { kind: 'escalate'; atMs: number } | { kind: 'expire'; atMs: number };

/**
 * The earliest of the pause's timers, all counted from when the pause began. On a tie the
 * expiry wins over the escalation (a form that times out fails, as it did before), and both over a reminder.
 */
export function nextFollowUp(plan: PauseFollowUp, pause: PauseState, timeoutS: number | null, nowMs: number): NextFollowUp | null {
  const since = pause.since ?? nowMs;
  const candidates: NextFollowUp[] = [];
  if (timeoutS !== null) candidates.push({ kind: 'expire', atMs: since + timeoutS * 1000 });
  if (plan.escalate) candidates.push({ kind: 'escalate', atMs: since + plan.escalate.afterS * 1000 });
  const sent = pause.reminded ?? 0;
  if (plan.remind && sent < plan.remind.max) candidates.push({ kind: 'remind', attempt: sent + 1, atMs: since + plan.remind.everyS * 1000 * (sent + 1) });
  let best: NextFollowUp | null = null;
  for (const c of candidates) if (!best || c.atMs < best.atMs) best = c;
  return best;
}

/** A step that only emits (its state a copy of `prev`, changed by `change`), for the pause's own events. */
function pauseStep(canvas: CompiledCanvas, prev: RunState, now: number, change: (step: ReturnType<typeof newStep>) => void): StepResult {
  const step = newStep(canvas, copyJson(prev), now);
  if (step.state.status === 'paused' && step.state.pause) change(step);
  return { state: step.state, events: step.sink.events, calls: step.calls, status: step.state.status };
}

/** A reminder of a paused form went out (or could not): `form_reminded`, and the run still waits. */
export function remindPause(
  canvas: CompiledCanvas,
  prev: RunState,
  reminder: { componentId: string; attempt: number; channel: 'webhook' | 'email'; delivered: boolean; error?: string },
  now: number,
): StepResult {
  return pauseStep(canvas, prev, now, (step) => {
    step.sink.emit('form_reminded', {
      component_id: reminder.componentId,
      attempt: reminder.attempt,
      channel: reminder.channel,
      delivered: reminder.delivered,
      ...(reminder.error !== undefined ? { error: reminder.error } : {}),
    });
    step.state.pause!.reminded = reminder.attempt;
  });
}

/**
 * Nobody answered a paused form within `escalate_after`: `form_escalated`, then the run goes on
 * and the form components run escalated, going to their `escalate_goto` (components/UserFillUp.ts).
 */
export function escalatePause(
  canvas: CompiledCanvas,
  prev: RunState,
  escalation: { waitedS: number; goto: string[] },
  now: number,
  options: EngineOptions = {},
): StepResult {
  const escalated = pauseStep(canvas, prev, now, (step) => {
    const { state } = step;
    step.sink.emit('form_escalated', { component_ids: [...state.pause!.componentIds], waited_s: escalation.waitedS, goto: escalation.goto });
    state.form.escalated = { waitedS: escalation.waitedS };
    state.pause = null;
    state.status = 'running';
  });
  if (escalated.status !== 'running') return escalated;
  const next = resumeRun(canvas, escalated.state, [], now, options);
  return { ...next, events: [...escalated.events, ...next.events] };
}
