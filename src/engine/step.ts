/**
 * One engine step in progress: the state being advanced, the events and calls it produces, and
 * the node bookkeeping shared by batch execution and post-processing.
 */
import type { ActivityCall, LlmChatResult, TokenUsage } from '../components/calls';
import type { Outcome } from '../components/types';
import type { CompiledCanvas } from './compile';
import { applyWrite, makeContext } from './context';
import { EventSink } from './events';
import type { RunState } from './state';

/** Retry and timeout settings of a call, from the component's params. */
export interface CallPolicy {
  /** Retries after the first attempt for errors from the call itself (RAGFlow's max_retries). */
  maxRetries: number;
  /** Seconds between attempts (RAGFlow's delay_after_error). */
  delayAfterError: number;
  /** Seconds one attempt may take; null = the deployment default. */
  timeout: number | null;
}

/** A call for the workflow to carry out (as an activity). */
export interface EngineCall {
  callId: string;
  componentId: string;
  call: ActivityCall;
  /** Readable one-line summary shown in the Temporal UI. */
  summary: string;
  policy: CallPolicy;
}

export type CallResult =
  | { callId: string; ok: true; value: unknown }
  | { callId: string; ok: false; error: string; code?: string };

export interface Step {
  readonly canvas: CompiledCanvas;
  readonly state: RunState;
  readonly sink: EventSink;
  readonly calls: EngineCall[];
  readonly now: number;
}

export function newStep(canvas: CompiledCanvas, state: RunState, now: number): Step {
  return { canvas, state, sink: new EventSink(state), calls: [], now };
}

const ZERO: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export function startNode(step: Step, id: string): void {
  step.state.nodes[id] = { status: 'running', startedAt: step.now, finishedAt: null, error: null, calls: 0, usage: { ...ZERO } };
  step.state.outputs[id] = {};
  delete step.state.nodeInputs[id];
  step.state.steps += 1;
}

function finishNode(step: Step, id: string): void {
  const ns = step.state.nodes[id];
  if (ns) {
    ns.status = 'finished';
    ns.finishedAt = step.now;
  }
}

/**
 * A node failed (its call exhausted its retries, or its logic refused). RAGFlow's `comment`
 * exception method turns the failure into the default value; otherwise the error is recorded and
 * post-processing decides (goto, default message, or failing the run).
 */
export function failNode(step: Step, id: string, message: string): void {
  const node = step.canvas.nodes[id]!;
  const ns = step.state.nodes[id]!;
  ns.finishedAt = step.now;
  const p = node.params;
  if (p.exception_method === 'comment' && p.exception_default_value) {
    const outputs = (step.state.outputs[id] ??= {});
    if (node.def.outputNames(p).includes('content')) outputs.content = p.exception_default_value;
    outputs.result = p.exception_default_value;
    ns.status = 'finished';
    return;
  }
  step.state.outputs[id] = { ...(step.state.outputs[id] ?? {}), _ERROR: message };
  ns.status = 'failed';
  ns.error = message;
}

export function policyOf(step: Step, id: string): CallPolicy {
  const p = step.canvas.nodes[id]!.params;
  return { maxRetries: p.max_retries, delayAfterError: p.delay_after_error, timeout: p.timeout };
}

export function newCallId(step: Step, id: string): string {
  step.state.callSeq += 1;
  return `${step.state.callSeq}:${id}`;
}

/** Applies what a component answered: outputs, an error, or another call. */
export function applyOutcome(step: Step, id: string, outcome: Outcome): void {
  const { state } = step;
  if (outcome.kind === 'error') {
    failNode(step, id, outcome.message);
    return;
  }
  if (outcome.inputs) state.nodeInputs[id] = outcome.inputs;
  if (outcome.kind === 'call') {
    const callId = newCallId(step, id);
    state.pending[callId] = { componentId: id, kind: 'component', activity: outcome.call.activity, memo: outcome.memo };
    step.calls.push({ callId, componentId: id, call: outcome.call, summary: `${id}: ${outcome.summary}`, policy: policyOf(step, id) });
    return;
  }
  const outputs = (state.outputs[id] ??= {});
  Object.assign(outputs, outcome.outputs);
  if (outcome.next) outputs._next = outcome.next;
  for (const w of outcome.writes ?? []) applyWrite(state, w);
  finishNode(step, id);
}

/** Adds a model call's token usage to its node and to the run. */
export function countUsage(step: Step, id: string, call: ActivityCall['activity'], value: unknown): void {
  const ns = step.state.nodes[id];
  if (ns) ns.calls += 1;
  if (call !== 'llmChat') return;
  const usage = (value as LlmChatResult | undefined)?.usage;
  if (!usage) return;
  const add = (u: TokenUsage) => {
    u.prompt_tokens += usage.prompt_tokens ?? 0;
    u.completion_tokens += usage.completion_tokens ?? 0;
    u.total_tokens += usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
  };
  if (ns) add(ns.usage);
  add(step.state.usage);
  step.state.usage.calls += 1;
}

/** Hands a finished call back to the component that asked for it. */
export function deliverResult(step: Step, id: string, activity: ActivityCall['activity'], result: CallResult, memo: unknown): void {
  const node = step.canvas.nodes[id]!;
  if (!result.ok) {
    failNode(step, id, result.error);
    return;
  }
  countUsage(step, id, activity, result.value);
  const position = step.state.path.lastIndexOf(id);
  const ctx = makeContext(step.canvas, step.state, id, position);
  const outcome = node.def.onResult ? node.def.onResult(node.params, ctx, result.value, memo) : { kind: 'error' as const, message: `${node.type} cannot take a call result` };
  applyOutcome(step, id, outcome);
}
