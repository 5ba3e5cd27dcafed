/**
 * The in-process carrier of the run loop (./loop.ts): calls are plain async functions, the clock
 * is given. Unit tests and benchmarks run canvases through it, so they exercise the same loop a
 * workflow runs, pause and cancel included; only durability and history are Temporal's.
 */
import type { CompiledCanvas } from './compile';
import type { RunEvent } from './runEvents';
import { checkPauseInputs } from './pause';
import { runLoop, type PauseOutcome, type RunCarrier } from './loop';
import { startRun, type EngineOptions, type InputsSubmission, type RunStartInput, type StepResult } from './run';
import { carryingItems, type ReusedItems } from './parallelItems';
import type { RunState } from './state';
import type { CallResult, EngineCall } from './step';

/** Carries out one call; resolves with its result (errors are results, not rejections). */
export type CallExecutor = (call: EngineCall) => Promise<CallResult>;

export interface InProcessResult {
  state: RunState;
  events: RunEvent[];
}

/** How a paused in-process run goes on: form values, an expired wait, or stop and return the paused state. */
export type PauseAnswer = { inputs: InputsSubmission } | { expired: number | null } | null;

export interface InProcessOptions extends EngineOptions {
  /** The clock; defaults to Date.now. */
  now?: () => number;
  /** Receives events as they are produced. */
  onEvents?: (events: RunEvent[]) => void | Promise<void>;
  /** How many calls run at once (RAGFlow's batch bound). */
  maxParallel?: number;
  /** Answers a pause (a UserFillUp form); without it the run returns paused. */
  onPause?: (state: RunState) => PauseAnswer | Promise<PauseAnswer>;
  /** Asked between steps: a reason cancels the run (calls in flight finish first). */
  cancelReason?: () => string | null;
  /** A fork inside a parallel Iteration's item: the earlier items' values (./parallelItems.ts). */
  reuseItems?: ReusedItems;
}

export async function runInProcess(canvas: CompiledCanvas, input: RunStartInput, exec: CallExecutor, options: InProcessOptions = {}): Promise<InProcessResult> {
  const now = options.now ?? Date.now;
  // No history to replay here: a parallel Iteration fans out unless the caller says otherwise.
  return continueInProcess(canvas, startRun(canvas, { parallelItems: true, ...input }, now(), options), exec, options);
}

/** Carries a run on from a step (a start, a resume with form inputs) until it pauses without an answer or ends. */
export async function continueInProcess(
  canvas: CompiledCanvas,
  first: StepResult,
  exec: CallExecutor,
  options: InProcessOptions = {},
): Promise<InProcessResult> {
  const events: RunEvent[] = [];
  const record = async (events_: RunEvent[]) => {
    events.push(...events_);
    await options.onEvents?.(events_);
  };
  const carrier: RunCarrier = {
    now: options.now ?? Date.now,
    record: (step) => record(step.events),
    carry: exec,
    guard: (round) => round(),
    isCancellation: () => false,
    cancelReason: () => options.cancelReason?.() ?? null,
    waitAtPause: async (paused): Promise<PauseOutcome> => {
      const answer = options.onPause ? await options.onPause(paused.state) : null;
      if (carrier.cancelReason() !== null) return { kind: 'canceled' };
      if (answer === null) return { kind: 'stop' };
      // A workflow refuses bad values before they reach the loop (its update validator); so does this.
      if ('inputs' in answer && !checkPauseInputs(paused.state, answer.inputs.inputs).ok) throw new Error('the submitted inputs do not fit the form');
      return 'inputs' in answer ? { kind: 'inputs', submission: answer.inputs } : { kind: 'expired', waitedS: answer.expired };
    },
    // Nothing to hand over to: an in-process run has no history that grows.
    shouldHandOver: () => false,
    handOver: () => Promise.reject(new Error('an in-process run is never handed over')),
  };
  const loopOptions = { ...options, maxParallel: options.maxParallel ?? 5 };
  const end = await runLoop(canvas, first, carryingItems(canvas, carrier, loopOptions, undefined, options.reuseItems), loopOptions);
  if (end.kind !== 'step') throw new Error('an in-process run is never handed over');
  // The loop leaves an ended run's last step to its caller (a workflow records it when it finalizes).
  if (end.step.status !== 'running' && end.step.status !== 'paused') await record(end.step.events);
  return { state: end.step.state, events };
}
