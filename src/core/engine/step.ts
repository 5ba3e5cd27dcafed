/**
 * One engine step being taken: the state being advanced, the events and calls it produces, and
 * the node bookkeeping shared by batch execution and post-processing. A component's calls are
 * grouped: a group goes back to the component when all of its calls are back.
 */
import { CALL_TRAITS, type ActivityCall, type LlmChatResult, type SubAgentResult, type TokenUsage } from '../components/callContracts';
import type { CallOutcome, Outcome, PlannedCall } from '../components/definition';
import type { CompiledCanvas } from './compile';
import { applyWrite, makeContext } from './context';
import { EventSink } from './runEvents';
import type { CallGroup, RunState } from './state';

/** Retry and timeout settings of a call, from the component's params. */
export interface CallPolicy {
  /** Retries after the first attempt for errors from the call itself (RAGFlow's max_retries). */
  maxRetries: number;
  /** Seconds between attempts (RAGFlow's delay_after_error). */
  delayAfterError: number;
  /** Seconds one attempt may take; null = the deployment default. */
  timeout: number | null;
}

/** A call for the workflow to carry out (an activity, or a child workflow for sub-agents). */
export interface EngineCall {
  callId: string;
  componentId: string;
  call: ActivityCall;
  /** Readable one-line summary shown in the Temporal UI. */
  summary: string;
  policy: CallPolicy;
  /** The call shares a bound of its own with the others of its group (a parallel Iteration's items): at most `limit` in flight. */
  bound?: { group: string; limit: number };
}

export type CallResult = { callId: string; ok: true; value: unknown } | { callId: string; ok: false; error: string; code?: string };

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
    ns.defaulted = true;
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
  step.state.calls.lastId += 1;
  return `${step.state.calls.lastId}:${id}`;
}

/** True while a component still waits for calls. */
export function hasOpenCalls(state: RunState, id: string): boolean {
  return Object.values(state.calls.groups).some((g) => g.componentId === id);
}

/** The call with engine-set fields added to its request (the traits say which requests take them). */
function withRequest(call: ActivityCall, extra: Record<string, unknown>): ActivityCall {
  return { ...call, request: { ...call.request, ...extra } } as ActivityCall;
}

function registerGroup(step: Step, id: string, planned: PlannedCall[], memo: unknown, multi: boolean, kind: CallGroup['kind'], maxConcurrency?: number): void {
  const { state } = step;
  state.calls.lastId += 1;
  const group = `g${state.calls.lastId}`;
  state.calls.groups[group] = { componentId: id, kind, multi, size: planned.length, memo, activities: planned.map((p) => p.call.activity), results: {} };
  planned.forEach((p, index) => {
    const callId = newCallId(step, id);
    state.calls.pending[callId] = { group, index, activity: p.call.activity };
    const traits = CALL_TRAITS[p.call.activity];
    let call = p.call;
    // A model call of a node a Message is showing streams its tokens into a slot of its own.
    // (A parallel Iteration's item has no slots in the log: its model calls answer whole.)
    if (kind === 'stream' && !state.lane && traits.streams && (call.request as { show?: boolean }).show !== false) {
      call = withRequest(call, {
        stream: { runId: state.runId, messageId: state.messageId, seq: step.sink.reserve(), componentId: id, createdAt: state.createdAt },
      });
    }
    // A child canvas's events go into a slot of this run's log, where this node stands (not from
    // a parallel Iteration's item: its events are not in the log, see parallelItems.ts).
    if (traits.nests && !state.lane)
      call = withRequest(call, { nest: { runId: state.runId, seq: step.sink.reserve(), createdAt: state.createdAt, messageId: state.messageId } });
    step.calls.push({
      callId,
      componentId: id,
      call,
      summary: `${id}: ${p.summary}`,
      policy: policyOf(step, id),
      ...(maxConcurrency !== undefined ? { bound: { group, limit: maxConcurrency } } : {}),
    });
  });
}

function addReference(step: Step, outcome: Outcome): void {
  if (!outcome.reference) return;
  Object.assign(step.state.reference.chunks, outcome.reference.chunks);
  Object.assign(step.state.reference.doc_aggs, outcome.reference.doc_aggs);
}

/** Applies what a component answered: outputs, an error, or more calls. */
export function applyOutcome(step: Step, id: string, outcome: Outcome, kind: CallGroup['kind'] = 'component'): void {
  const { state } = step;
  for (const p of outcome.notices ?? []) step.sink.emit(p.event, { component_id: id, ...p.data });
  addReference(step, outcome);
  if (outcome.kind === 'error') {
    failNode(step, id, outcome.message);
    return;
  }
  if (outcome.inputs) state.nodeInputs[id] = outcome.inputs;
  if (outcome.kind === 'call') return registerGroup(step, id, [{ call: outcome.call, summary: outcome.summary }], outcome.memo, false, kind);
  if (outcome.kind === 'calls') {
    if (outcome.calls.length === 0) return applyOutcome(step, id, { kind: 'error', message: `${id} asked for an empty set of calls` });
    return registerGroup(step, id, outcome.calls, outcome.memo, true, kind, outcome.maxConcurrency);
  }
  const outputs = (state.outputs[id] ??= {});
  Object.assign(outputs, outcome.outputs);
  if (outcome.next) outputs._next = outcome.next;
  for (const w of outcome.writes ?? []) applyWrite(state, w);
  finishNode(step, id);
}

/** Adds a model call's token usage to its node and to the run. */
function countUsage(step: Step, id: string, call: ActivityCall['activity'], value: unknown): void {
  const ns = step.state.nodes[id];
  if (ns) ns.calls += 1;
  // A sub-agent's or an invoked canvas's model calls count toward the node that called it, and the run.
  const counts = CALL_TRAITS[call].usage;
  if (counts === 'none') return;
  const usage = (value as LlmChatResult | SubAgentResult | undefined)?.usage;
  if (!usage) return;
  const calls = counts === 'model' ? 1 : ((usage as SubAgentResult['usage']).calls ?? 0);
  const add = (u: TokenUsage) => {
    u.prompt_tokens += usage.prompt_tokens ?? 0;
    u.completion_tokens += usage.completion_tokens ?? 0;
    u.total_tokens += usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
    if (usage.estimated) u.estimated = true;
  };
  if (ns) add(ns.usage);
  add(step.state.usage);
  step.state.usage.calls += calls;
}

function deliver(step: Step, group: CallGroup): void {
  const id = group.componentId;
  const node = step.canvas.nodes[id]!;
  const results = Array.from({ length: group.size }, (_, i) => group.results[i]!);
  results.forEach((r, i) => r.ok && countUsage(step, id, group.activities[i]!, r.value));
  if (!group.multi && !results[0]!.ok) {
    failNode(step, id, results[0]!.error ?? 'the call failed');
    return;
  }
  const position = step.state.path.lastIndexOf(id);
  const ctx = makeContext(step.canvas, step.state, id, position);
  const given: unknown = group.multi
    ? results.map((r): CallOutcome => (r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error ?? 'failed', ...(r.code ? { code: r.code } : {}) }))
    : results[0]!.value;
  let outcome: Outcome;
  try {
    outcome = node.def.onResult ? node.def.onResult(node.params, ctx, given, group.memo) : { kind: 'error', message: `${node.type} cannot take a call result` };
  } catch (err) {
    outcome = { kind: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  applyOutcome(step, id, outcome, group.kind);
}

/** Files a call's result; when it completes its group, hands the group back to its component. */
export function receiveResult(step: Step, result: CallResult): void {
  const { state } = step;
  const pending = state.calls.pending[result.callId];
  if (!pending) return; // a late result of a canceled or superseded call
  delete state.calls.pending[result.callId];
  const group = state.calls.groups[pending.group];
  if (!group) return;
  group.results[pending.index] = result.ok
    ? { ok: true, value: result.value }
    : { ok: false, error: result.error, ...(result.code ? { code: result.code } : {}) };
  if (Object.keys(group.results).length < group.size) return;
  delete state.calls.groups[pending.group];
  deliver(step, group);
}
