/**
 * The crash-point matrix: for each reference run, the points where a process can die, each under
 * each stop kind. A point id is `<reference>:<point>`, the point as the worker's hook names it:
 *
 *   <Activity>#n:started        the nth execution of that activity (or local activity) began, nothing done yet
 *   <Activity>#n:completed      it returned; the result has not reached Temporal (a local activity's
 *                               lives only in the workflow task that is still running)
 *   llmChat#n:mid-stream        the nth model call of the run is streaming, words already shown
 *   task:schedule:<A>#n         the workflow task that schedules activity A is about to complete
 *   task:schedule-local:<A>#n   …that runs local activity A next
 *   task:child:<W>#n            …that starts a child workflow
 *   task:update-accepted#n      …that accepted an update (a form's answer)
 *   task:continue-as-new#n      …that continues the run as a new execution
 *   task:complete#n             …that completes the workflow
 */
import type { StopKind } from './runCase';

/** The worker's stops only: the API is killed where it holds something (a stream, an update, a start). */
const WORKER: StopKind[] = ['sigkill', 'graceful'];
/** The Temporal server restarted too, where it holds what is not in history yet (an answer being taken). */
const ALL: StopKind[] = ['sigkill', 'graceful', 'api-kill', 'temporal-restart'];
/** Default for a point: the worker's stops and the API's. */
export const DEFAULT_STOPS: StopKind[] = ['sigkill', 'graceful', 'api-kill'];

export interface MatrixPoint {
  point: string;
  /** The stop kinds this point is taken under (default: DEFAULT_STOPS). */
  stops?: StopKind[];
}

/** Every point of every reference run; `npm run crashpoints` takes them all. */
export const MATRIX: Record<string, MatrixPoint[]> = {
  'llm-chain': [
    { point: 'llmChat#1:completed' },
    { point: 'task:schedule:llmChat#2', stops: WORKER },
    { point: 'llmChat#2:started' },
    { point: 'llmChat#2:mid-stream' },
    { point: 'llmChat#2:completed' },
    { point: 'task:schedule-local:finalizeRun#1', stops: WORKER },
    { point: 'finalizeRun#1:completed', stops: WORKER },
  ],
  'agent-tools': [
    { point: 'llmChat#1:completed' },
    { point: 'task:schedule:toolInvoke#1', stops: WORKER },
    { point: 'toolInvoke#1:started', stops: WORKER },
    { point: 'toolInvoke#1:completed' },
    { point: 'toolInvoke#2:completed', stops: WORKER },
    { point: 'llmChat#3:mid-stream' },
    { point: 'finalizeRun#1:completed', stops: WORKER },
  ],
  'user-fill-up': [
    { point: 'appendRunEvents#1:completed', stops: WORKER },
    { point: 'task:update-accepted#1', stops: ALL },
    { point: 'llmChat#1:started' },
    { point: 'llmChat#1:mid-stream' },
    { point: 'finalizeRun#1:completed', stops: WORKER },
  ],
  'form-to-message': [
    { point: 'task:update-accepted#1', stops: ALL },
    { point: 'finalizeRun#1:completed', stops: ALL },
  ],
  iteration: [
    { point: 'llmChat#2:started', stops: WORKER },
    { point: 'llmChat#2:mid-stream' },
    { point: 'llmChat#2:completed', stops: WORKER },
    { point: 'task:schedule:llmChat#3', stops: WORKER },
  ],
  'sub-agent': [
    { point: 'task:child:subAgentRun#1' },
    { point: 'registerChildRun#1:completed', stops: WORKER },
    { point: 'toolInvoke#1:completed', stops: WORKER },
    { point: 'llmChat#3:mid-stream' },
    { point: 'finalizeRun#1:completed', stops: WORKER },
    { point: 'task:complete#1', stops: WORKER },
    { point: 'llmChat#4:mid-stream' },
  ],
  // The run continues as new after its 17th model call (the API's RUN_CONTINUE_AS_NEW_EVENTS=100).
  'continue-as-new': [
    { point: 'appendRunEvents#1:completed', stops: WORKER },
    { point: 'task:continue-as-new#1', stops: WORKER },
    { point: 'task:schedule:llmChat#18', stops: WORKER },
    { point: 'llmChat#18:started', stops: WORKER },
    { point: 'llmChat#18:mid-stream' },
    { point: 'finalizeRun#1:completed', stops: WORKER },
  ],
  // A document parsed by a pipeline canvas: its answer is the chunks stored; the API holds nothing of it.
  'ingest-pipeline': [
    { point: 'loadPipeline#1:completed', stops: WORKER },
    { point: 'task:schedule:runPipelineStep#1', stops: WORKER },
    { point: 'runPipelineStep#2:started', stops: WORKER },
    { point: 'runPipelineItems#1:started', stops: WORKER },
    { point: 'runPipelineItems#1:completed', stops: WORKER },
    { point: 'applyPipelineItems#1:completed', stops: WORKER },
    { point: 'commitPipelineChunks#1:started', stops: WORKER },
    { point: 'commitPipelineChunks#1:completed', stops: [...WORKER, 'temporal-restart'] },
    { point: 'task:complete#1', stops: WORKER },
  ],
};

/**
 * The bounded subset `npm test` takes (test/crashpoints): a crash mid-stream, a graceful stop
 * mid-stream past the grace, and a form's answer whose workflow task dies after its local
 * activities while the API and the Temporal server restart.
 */
export const TEST_SUBSET: Array<{ id: string; stop: StopKind }> = [
  { id: 'llm-chain:llmChat#2:mid-stream', stop: 'sigkill' },
  { id: 'llm-chain:llmChat#2:mid-stream', stop: 'graceful' },
  { id: 'form-to-message:finalizeRun#1:completed', stop: 'temporal-restart' },
];
