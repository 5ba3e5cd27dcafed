/** The workflows the worker registers. */
export { canvasRun } from './canvasRun';
export { subAgentRun } from './subAgentRun';
export { indexDocument } from './indexDocument';
export { ingestPipeline } from './ingestPipeline';
export { memoryExtraction } from './memoryExtraction';
export { evalRuns } from './evalRuns';

import type { CanvasRunWorkflow, SubAgentRunWorkflow } from './children';
import { canvasRun } from './canvasRun';
import { subAgentRun } from './subAgentRun';

// calls.ts starts these by the signatures in children.ts: a workflow that drifts from them fails here.
canvasRun satisfies CanvasRunWorkflow;
subAgentRun satisfies SubAgentRunWorkflow;
export { scheduledRun } from './scheduledRun';
