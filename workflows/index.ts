/** The workflows the worker registers. */
export { canvasRun } from './canvasRun';
export { subAgentRun } from './subAgent';
export { indexDocument } from './indexDocument';
