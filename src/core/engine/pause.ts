/**
 * Pauses for a person (UserFillUp), RAGFlow's look-ahead after each batch: when the path ahead
 * holds form components, they move to the front, their forms merge into one `user_inputs` event,
 * and the run waits. Submitted values are checked against the form (pure, so the workflow's
 * update validator uses the same check) and handed to the form components when they run.
 */
import { checkForm, type FormCheck } from '../components/forms';
import type { FormFieldSpec } from '../components/definition';
import { makeContext } from './context';
import type { RunState } from './state';
import type { Step } from './step';

/** Pauses the run if a form lies ahead on the path; true when it paused. */
export function maybePause(step: Step): boolean {
  const { canvas, state } = step;
  const ahead = state.path.slice(state.cursor.position);
  const forms = ahead.filter((id) => canvas.nodes[id]?.role === 'form');
  if (forms.length === 0) return false;
  // Resuming: the submitted values (or the expiry) are for these forms; let them run.
  if (state.form.submitted !== null || state.form.expired !== null || (state.form.escalated ?? null) !== null) return false;
  state.path = [...state.path.slice(0, state.cursor.position), ...forms, ...ahead.filter((id) => canvas.nodes[id]?.role !== 'form')];
  const fields: Record<string, FormFieldSpec> = {};
  let tips = '';
  let timeoutS: number | null = null;
  forms.forEach((id, i) => {
    const node = canvas.nodes[id]!;
    const form = node.def.form?.(node.params, makeContext(canvas, state, id, state.cursor.position + i));
    if (!form) return;
    Object.assign(fields, form.fields);
    if (form.tips) tips = form.tips;
    const t = node.params.timeout;
    if (t !== null) timeoutS = timeoutS === null ? t : Math.min(timeoutS, t);
  });
  // Nothing to ask (a form without fields): RAGFlow goes on without waiting.
  if (Object.keys(fields).length === 0) return false;
  step.sink.emit('user_inputs', { inputs: fields, tips });
  state.pause = { componentIds: forms, form: fields, tips, seq: state.events.lastSeq, timeoutS, since: step.now };
  state.status = 'paused';
  return true;
}

/** Checks a submission for the form a paused run waits for. */
export function checkPauseInputs(state: RunState, inputs: Readonly<Record<string, unknown>>): FormCheck {
  if (state.status !== 'paused' || !state.pause) return { ok: false, problems: [{ field: '', message: `the run is ${state.status}, not waiting for input` }] };
  return checkForm(state.pause.form, inputs);
}

/** What the run status and queries show of a pause. */
export function pendingInputsOf(state: RunState): Record<string, unknown> | null {
  const p = state.pause;
  if (!p) return null;
  return { component_ids: p.componentIds, inputs: p.form, tips: p.tips, event_seq: p.seq, timeout: p.timeoutS };
}
