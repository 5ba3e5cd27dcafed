/**
 * The bare Temporal harness `npm run bench` measures agent-canvas against (bench/floor/harness.ts):
 * the least a workflow can do on the same dev server, with its own bundle so none of the
 * product's modules are evaluated. Workflow code only (it runs in the sandbox).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

const acts = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** What a node costs at the least: one activity, or (agent-canvas's shape) a local activity then an activity. */
export type FloorShape = 'activity' | 'local+activity';

/** Start → result with nothing in between. */
export async function floorEmpty(): Promise<void> {}

/** `n` nodes one after another, each of `shape`. */
export async function floorChain(n: number, shape: FloorShape): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (shape === 'local+activity') await local.floorLocal(i);
    await acts.floorActivity(i);
  }
}
