/**
 * The bare Temporal harness `npm run bench` measures agent-canvas against (bench/floor/harness.ts):
 * the least a workflow can do on the same dev server, with its own bundle so none of the
 * product's modules are evaluated. Workflow code only (it runs in the sandbox).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

const acts = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/**
 * What a node costs at the least: one activity, a local activity then an activity (agent-canvas's
 * earlier shape), or one activity that streams a model's answer (a model node's least work).
 */
export type FloorShape = 'activity' | 'local+activity' | 'model';

/** Start → result with nothing in between. */
export async function floorEmpty(): Promise<void> {}

/** Start → result with one local activity: the least a run that records its end durably costs. */
export async function floorDurableEnd(): Promise<void> {
  await local.floorLocal(0);
}

/** `n` nodes one after another, each of `shape`. */
export async function floorChain(n: number, shape: FloorShape): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (shape === 'local+activity') await local.floorLocal(i);
    await (shape === 'model' ? acts.floorModel(i) : acts.floorActivity(i));
  }
}
