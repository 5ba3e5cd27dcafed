/** What a run's progress query (and the runs route) shows of its state. */
import { pendingInputsOf } from './pause';
import type { RunState, RunStatus } from './state';

/** Status, path and node states, as queries and the runs route show them. */
export interface RunProgress {
  status: RunStatus;
  path: string[];
  nodes: RunState['nodes'];
  /** The form a paused run waits for (UserFillUp); null otherwise. */
  pendingInputs: Record<string, unknown> | null;
  usage: RunState['usage'];
  error: string | null;
}

export function progressOf(state: RunState): RunProgress {
  return { status: state.status, path: [...state.path], nodes: state.nodes, pendingInputs: pendingInputsOf(state), usage: state.usage, error: state.error };
}
