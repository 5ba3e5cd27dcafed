/**
 * Runs a canvas to the end in-process, with calls carried out by a given executor. This is the
 * same loop the workflow runs, without Temporal: unit tests and benchmarks use it as the baseline.
 */
import type { CompiledCanvas } from './compile';
import type { RunEvent } from './events';
import { resumeRun, startRun, type EngineOptions, type RunStartInput, type StepResult } from './run';
import type { RunState } from './state';
import type { CallResult, EngineCall } from './step';

/** Carries out one call; resolves with its result (errors are results, not rejections). */
export type CallExecutor = (call: EngineCall) => Promise<CallResult>;

export interface InProcessResult {
  state: RunState;
  events: RunEvent[];
}

export interface InProcessOptions extends EngineOptions {
  /** The clock; defaults to Date.now. */
  now?: () => number;
  /** Receives events as they are produced. */
  onEvents?: (events: RunEvent[]) => void | Promise<void>;
  /** How many calls run at once (RAGFlow's batch bound). */
  maxParallel?: number;
}

async function runAll(calls: EngineCall[], exec: CallExecutor, limit: number): Promise<CallResult[]> {
  const results: CallResult[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const i = next++;
      results[i] = await exec(calls[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
  return results;
}

export async function runInProcess(canvas: CompiledCanvas, input: RunStartInput, exec: CallExecutor, options: InProcessOptions = {}): Promise<InProcessResult> {
  const now = options.now ?? Date.now;
  return continueInProcess(canvas, startRun(canvas, input, now(), options), exec, options);
}

/**
 * Carries a run on from a step (a start, a resume with form inputs) until it pauses or ends:
 * the workflow's loop, without Temporal.
 */
export async function continueInProcess(canvas: CompiledCanvas, first: StepResult, exec: CallExecutor, options: InProcessOptions = {}): Promise<InProcessResult> {
  const now = options.now ?? Date.now;
  const events: RunEvent[] = [];
  let step = first;
  for (;;) {
    events.push(...step.events);
    await options.onEvents?.(step.events);
    if (step.status !== 'running' || step.calls.length === 0) return { state: step.state, events };
    const results = await runAll(step.calls, exec, options.maxParallel ?? 5);
    step = resumeRun(canvas, step.state, results, now(), options);
  }
}
