/**
 * Fails a run from outside its components: a call result the run cannot go on after, whatever
 * exception handling the component that made the call has (a budget the next model call would
 * exceed, BUDGET_EXCEEDED). The nodes in flight finish with the error, then `run_failed` names it.
 */
import { copyJson } from '../dsl/jsonCopy';
import type { CompiledCanvas } from './compile';
import type { StepResult } from './run';
import { endInFlight } from './inFlight';
import type { RunState } from './state';
import { newStep } from './step';

export function failRun(canvas: CompiledCanvas, prev: RunState, message: string, now: number): StepResult {
  const state = copyJson(prev);
  const step = newStep(canvas, state, now);
  if (state.status !== 'finished' && state.status !== 'failed' && state.status !== 'canceled') {
    endInFlight(canvas, state, step, 'failed', message, now);
    state.status = 'failed';
    state.error = message;
    step.sink.emit('run_failed', { error: message });
  }
  return { state, events: step.sink.events, calls: step.calls, status: state.status };
}
