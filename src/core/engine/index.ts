/**
 * The engine: compile a canvas, then advance runs with pure transitions.
 * See docs/ARCHITECTURE.md for how the workflow drives it.
 */
export { compileCanvas, type CompiledCanvas, type CompiledNode, type CompileResult } from './compile';
export { canvasFromPrepared, prepareCanvas, type PreparedCanvas } from './prepared';
export { isTerminalEvent, type RunEvent, type RunEventName } from './runEvents';
export {
  cancelRun,
  CANCELED_MESSAGE,
  expirePause,
  submitInputs,
  type InputsSubmission,
  DEFAULT_MAX_STEPS,
  resumeRun,
  startRun,
  type EngineOptions,
  type RunStartInput,
  type StepResult,
} from './run';
export { emptySession, sessionAfter, type NodeState, type RunState, type RunStatus, type SessionState } from './state';
export type { CallPolicy, CallResult, EngineCall } from './step';
export { checkPauseInputs, pendingInputsOf } from './pause';
export { progressOf, type RunProgress } from './progress';
export { continueInProcess, runInProcess, type CallExecutor, type InProcessOptions, type InProcessResult, type PauseAnswer } from './inProcess';
export { historyFull, runLoop, type LoopCheckpoint, type PauseOutcome, type RunCarrier } from './loop';
export { announcement, rejectRun } from './startEvents';
