/**
 * The product's workflows with one deliberate change, bundled by the tests as "the next version":
 * a canvas run starts a one-millisecond timer before its first step. The same canvas therefore
 * emits a different command sequence (TimerStarted first), which is exactly what breaks a run
 * in flight that replays on it, and what worker versioning and the replay gate must catch.
 */
import { setWorkflowOptions, sleep, workflowInfo } from '@temporalio/workflow';
import { canvasRun as releasedCanvasRun } from '../../workflows/canvasRun';
import type { CanvasRunInput, CanvasRunResult } from '../../workflows/definitions';

export { subAgentRun, indexDocument } from '../../workflows';

export async function canvasRun(input: CanvasRunInput): Promise<CanvasRunResult> {
  await sleep(1);
  return releasedCanvasRun(input);
}
setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' } : {}), canvasRun);
