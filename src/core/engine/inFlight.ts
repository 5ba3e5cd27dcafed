/**
 * Ends a run's work in flight from outside its components (a cancel, a budget stop): each running
 * or streaming node finishes with `error` (its `node_finished` sent), and nothing is left pending,
 * deferred, awaiting render or paused.
 */
import type { CompiledCanvas } from './compile';
import { nodeFinishedData } from './runEvents';
import type { RunState } from './state';
import type { Step } from './step';

export function endInFlight(canvas: CompiledCanvas, state: RunState, step: Step, status: 'failed' | 'canceled', error: string, now: number): void {
  for (const id of state.path) {
    const ns = state.nodes[id];
    if (!ns || (ns.status !== 'running' && ns.status !== 'streaming')) continue;
    ns.status = status;
    ns.error = error;
    ns.finishedAt = now;
    state.outputs[id] = { ...state.outputs[id], _ERROR: error };
    step.sink.emit('node_finished', nodeFinishedData(canvas, state, id, now));
  }
  state.calls.pending = {};
  state.calls.groups = {};
  state.calls.deferred = {};
  state.display.awaitingRender = [];
  state.pause = null;
}
