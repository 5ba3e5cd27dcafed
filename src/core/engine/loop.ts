/**
 * The run loop, once: record each step's events, carry out its calls (a bounded number at a time),
 * feed the results back to the engine, and stop at a pause, a cancel or the end. It is written
 * against a {@link RunCarrier}: the Temporal workflow carries calls as activities and child
 * workflows and waits with `condition()` (workflows/workflowCarrier.ts); the in-process driver carries
 * them as plain async functions (./inProcess.ts). So unit tests and benchmarks exercise the loop
 * production runs. No clock, no I/O and no Temporal import here: the carrier brings them.
 */
import type { CompiledCanvas } from './compile';
import { cancelRun, expirePause, resumeRun, submitInputs, type EngineOptions, type InputsSubmission, type StepResult } from './run';
import { escalatePause, remindPause } from './pauseFollowUp';
import type { RunState } from './state';
import { failRun } from './stopRun';
import type { CallResult, EngineCall } from './step';
import { steerRun, type SteerMessage } from './steer';

/** What ended a wait at a pause. */
export type PauseOutcome =
  /** A person submitted the form. */
  | { kind: 'inputs'; submission: InputsSubmission }
  /** Nobody answered in time; the form components fail with a timeout. */
  | { kind: 'expired'; waitedS: number | null }
  /** A reminder's time came and it was sent (or failed to be): the loop records it and waits again. */
  | { kind: 'reminded'; componentId: string; attempt: number; channel: 'webhook' | 'email'; delivered: boolean; error?: string }
  /** Nobody answered within `escalate_after`: the forms take their escalation branch. */
  | { kind: 'escalated'; waitedS: number; goto: string[] }
  /** The run was canceled while it waited (the loop reads the reason from the carrier). */
  | { kind: 'canceled' }
  /** The carrier does not wait (an in-process run without a form answerer): the loop returns the paused step. */
  | { kind: 'stop' };

/** Where a continued run picks up: the engine state and the calls it was about to make. */
export interface LoopCheckpoint {
  state: RunState;
  calls: EngineCall[];
}

/** What the loop needs from whatever runs it. */
export interface RunCarrier<H = never> {
  /** The current time (ms): workflow time in a workflow, the wall clock in process. */
  now(): number;
  /**
   * Records a step before its calls are made or its pause is waited at; nothing to wait for when
   * the step's events go with its call (a workflow creates no promise it need not: each one costs
   * the SDK a stack trace).
   */
  record(step: StepResult): Promise<void> | void;
  /** Carries out one call; failures are results, only a cancellation rejects. */
  carry(call: EngineCall): Promise<CallResult>;
  /** Runs one round of calls so that a cancel can cut it short (a cancellation scope). */
  guard<T>(round: () => Promise<T>): Promise<T>;
  /** Whether a rejection from `guard` is the cancel this run was asked for. */
  isCancellation(err: unknown): boolean;
  /** The reason the run was asked to cancel, or null. */
  cancelReason(): string | null;
  /** Waits at a pause for inputs, a timeout or a cancel. */
  waitAtPause(paused: StepResult): Promise<PauseOutcome>;
  /** Whether to hand the run over to a fresh execution before the next calls (see {@link historyFull}). */
  shouldHandOver(): boolean;
  /** Hands over (a workflow's continue-as-new); its result is the loop's result. */
  handOver(checkpoint: LoopCheckpoint): Promise<H>;
  /**
   * A call result the run cannot go on after (a budget exceeded): the error the run fails with,
   * whatever the calling component's exception handling says; null (or absent) to go on.
   */
  stopAfter?(results: CallResult[]): string | null;
  /**
   * Messages steered into the run since the last round (message_policy steer, ./steer.ts): filed
   * for the running Agents before the round's results go back to the engine. Absent: none.
   */
  takeSteered?(): SteerMessage[];
  /** Sees every step the loop moves to (progress queries, a cancel through Temporal). */
  observe?(step: StepResult): void;
}

export interface LoopOptions extends EngineOptions {
  /** How many calls are in flight at once (RAGFlow's batch bound). */
  maxParallel: number;
}

/** The loop's end: the last step (not recorded yet when it ended the run), or a hand-over. */
export type LoopEnd<H> = { kind: 'step'; step: StepResult } | { kind: 'handedOver'; value: H };

export function hasEnded(step: StepResult): boolean {
  return step.status === 'finished' || step.status === 'failed' || step.status === 'canceled';
}

/**
 * Pure continue-as-new predicate: hand over when the host suggests it, or when the history passes
 * the run's own event budget (it grows with every round of an agent).
 */
export function historyFull(history: { suggested: boolean; length: number }, budget: number): boolean {
  return history.suggested || history.length >= budget;
}

/**
 * Carries out calls with at most `limit` in flight; results keep the calls' order. Calls bound as a
 * group of their own (a parallel Iteration's items, `EngineCall.bound`) take their group's limit
 * instead, beside the others. On a rejection (a cancellation) every lane stops taking calls and
 * waits for its own call to settle, so no call still writes when the run records that it was canceled.
 */
export async function carryBounded(calls: EngineCall[], limit: number, carry: (call: EngineCall) => Promise<CallResult>): Promise<CallResult[]> {
  // Most rounds are one call (a model or tool node): no lanes to run it in.
  if (calls.length === 1) return [await carry(calls[0]!)];
  const results: CallResult[] = new Array(calls.length);
  let stopped: { err: unknown } | null = null;
  const pools = new Map<string, { limit: number; indices: number[] }>();
  calls.forEach((call, i) => {
    const key = call.bound ? `bound:${call.bound.group}` : '';
    const pool = pools.get(key) ?? { limit: call.bound ? call.bound.limit : limit, indices: [] };
    pool.indices.push(i);
    pools.set(key, pool);
  });
  const lanes: Array<Promise<void>> = [];
  for (const pool of pools.values()) {
    let next = 0;
    const lane = async () => {
      while (next < pool.indices.length && stopped === null) {
        const i = pool.indices[next++]!;
        try {
          results[i] = await carry(calls[i]!);
        } catch (err) {
          stopped ??= { err };
        }
      }
    };
    for (let k = 0; k < Math.max(1, Math.min(pool.limit, pool.indices.length)); k++) lanes.push(lane());
  }
  await Promise.all(lanes);
  if (stopped !== null) throw (stopped as { err: unknown }).err;
  return results;
}

async function afterPause<H>(canvas: CompiledCanvas, paused: StepResult, carrier: RunCarrier<H>, options: LoopOptions): Promise<StepResult | null> {
  const outcome = await carrier.waitAtPause(paused);
  switch (outcome.kind) {
    case 'stop':
      return null;
    case 'canceled':
      return paused; // the loop turns it into a cancel
    case 'expired':
      return expirePause(canvas, paused.state, outcome.waitedS, carrier.now(), options);
    case 'reminded': {
      const { kind: _reminded, ...reminder } = outcome;
      return remindPause(canvas, paused.state, reminder, carrier.now());
    }
    case 'escalated':
      return escalatePause(canvas, paused.state, { waitedS: outcome.waitedS, goto: outcome.goto }, carrier.now(), options);
    case 'inputs': {
      const next = submitInputs(canvas, paused.state, outcome.submission, carrier.now(), options);
      return 'error' in next ? paused : next;
    }
  }
}

/** The run continued with the round's results, after filing the messages steered in meanwhile (their events first). */
function resumeWithSteered<H>(canvas: CompiledCanvas, step: StepResult, results: CallResult[], carrier: RunCarrier<H>, options: LoopOptions): StepResult {
  const steered = carrier.takeSteered?.() ?? [];
  if (steered.length === 0) return resumeRun(canvas, step.state, results, carrier.now(), options);
  const filed = steerRun(canvas, step.state, steered, carrier.now());
  const next = resumeRun(canvas, filed.state, results, carrier.now(), options);
  return { ...next, events: [...filed.events, ...next.events] };
}

/** Drives a run from `first` until it ends, stops at a pause, or is handed over. */
export async function runLoop<H>(canvas: CompiledCanvas, first: StepResult, carrier: RunCarrier<H>, options: LoopOptions): Promise<LoopEnd<H>> {
  let step = first;
  const moveTo = (next: StepResult) => {
    step = next;
    carrier.observe?.(step);
  };
  const cancel = (reason: string) => moveTo(cancelRun(canvas, step.state, reason, carrier.now()));
  carrier.observe?.(step);
  for (;;) {
    // An ended step is the caller's to record: it writes the last events after handing the
    // session back, so a client that sees workflow_finished can start its next turn at once.
    if (hasEnded(step)) return { kind: 'step', step };
    const recording = carrier.record(step);
    if (recording) await recording;
    const reason = carrier.cancelReason();
    if (reason !== null) {
      cancel(reason);
      continue;
    }
    if (step.status === 'paused') {
      // A pause of seconds or days: the loop waits here, holding no call.
      const next = await afterPause(canvas, step, carrier, options);
      if (next === null) return { kind: 'step', step };
      moveTo(next);
      continue;
    }
    if (step.status !== 'running' || step.calls.length === 0) return { kind: 'step', step };
    if (carrier.shouldHandOver()) return { kind: 'handedOver', value: await carrier.handOver({ state: step.state, calls: step.calls }) };
    let results: CallResult[];
    try {
      const calls = step.calls;
      results = await carrier.guard(() => carryBounded(calls, options.maxParallel, (c) => carrier.carry(c)));
    } catch (err) {
      const canceled = carrier.cancelReason();
      if (!(carrier.isCancellation(err) && canceled !== null)) throw err;
      cancel(canceled);
      continue;
    }
    const canceled = carrier.cancelReason();
    const stop = canceled === null ? (carrier.stopAfter?.(results) ?? null) : null;
    if (canceled !== null) cancel(canceled);
    else if (stop !== null) moveTo(failRun(canvas, step.state, stop, carrier.now()));
    else moveTo(resumeWithSteered(canvas, step, results, carrier, options));
  }
}
