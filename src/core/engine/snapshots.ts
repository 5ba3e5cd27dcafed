/**
 * Batch snapshots: the run state as it stood just before a batch started (RAGFlow's `_run_batch`),
 * the point a fork of the run restarts from (docs/ARCHITECTURE.md, "Time travel"). Kept once per
 * batch of components the run had not reached before, and once per pass of a loop (the batch that
 * starts its IterationItem or LoopItem): a fork inside an item restarts that item from the state
 * before it, with the earlier items' results as they were. The body's own batches of later passes
 * are not kept again, so a run keeps one snapshot per component plus one per loop pass.
 */
import { copyJson } from '../dsl/jsonCopy';
import { startBatch } from './batch';
import { maybePause } from './pause';
import type { RunState } from './state';
import type { Step } from './step';

export interface BatchSnapshot {
  /** Index in the state's path of the batch's first component. */
  position: number;
  /** The components the batch started (path[position, to) once deferrals were taken off). */
  components: string[];
  /** The state before the batch: cursor at `position`, phase `next`. */
  state: RunState;
}

/** Whether the batch at `position` starts a pass of a loop (its IterationItem or LoopItem is in it). */
function startsLoopPass(step: Step, position: number): boolean {
  const { state, canvas } = step;
  for (let i = position; i < state.path.length; i++) if (canvas.nodes[state.path[i]!]?.role === 'loopItem') return true;
  return false;
}

/** Starts the batch at the cursor (./batch.ts), keeping the state before it in `snapshots` when given. */
export function startBatchKept(step: Step, snapshots: BatchSnapshot[] | undefined): number {
  const { state } = step;
  const position = state.cursor.position;
  const first = state.path[position];
  // lastIndexOf with -1 would search the whole path: position 0 was reached by nothing before it.
  const reachedBefore = first === undefined || (position > 0 && state.path.lastIndexOf(first, position - 1) >= 0);
  const before = snapshots && (!reachedBefore || startsLoopPass(step, position)) ? copyJson(state) : null;
  const to = startBatch(step);
  if (before) snapshots!.push({ position, components: state.path.slice(position, to), state: before });
  return to;
}

/**
 * Pauses at the forms ahead (./pause.ts) and keeps the state before them: the pause only put the
 * forms first on the path (as it does again from that state) and marked the run paused, so the
 * state with the pause taken off is the one a fork asks the form again from.
 */
export function pauseKept(step: Step, snapshots: BatchSnapshot[] | undefined): boolean {
  const { state } = step;
  if (!maybePause(step)) return false;
  const position = state.cursor.position;
  const first = state.path[position]!;
  if (snapshots && !(position > 0 && state.path.lastIndexOf(first, position - 1) >= 0)) {
    const before = copyJson(state);
    before.status = 'running';
    before.pause = null;
    snapshots.push({ position, components: [...(state.pause?.componentIds ?? [first])], state: before });
  }
  return true;
}
