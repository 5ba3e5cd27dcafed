/**
 * A parallel Iteration (`max_concurrency` > 0, RAGFlow's Go `Parallel`): each item's body runs as a
 * nested run of this engine, with a state of its own made from the run's state when the item
 * starts, and the Iteration collects the items' values in item order however they finish.
 *
 * Chosen by measurement over child workflows and one activity per item (docs/ARCHITECTURE.md,
 * "Parallel Iteration"): the items' calls are the run's own activities, so a finished item's calls
 * are in the run's history and a worker that dies mid-fan-out repeats none of them; no child
 * workflow's start and history per item; any body the sequential Iteration runs runs here (model,
 * tools, sub-agents), except a form, which cannot wait inside an item.
 *
 * An item's own events (its body's node_started/finished) are not written to the run's log: items
 * run side by side, and the log is one ordered stream. The Iteration's node_finished carries the
 * collected outputs, as RAGFlow's Go engine reports a Parallel node.
 */
import type { IterationItemRequest, IterationItemResult } from '../components/callContracts';
import { passValues } from '../components/loops';
import { copyJson } from '../dsl/jsonCopy';
import type { CompiledCanvas } from './compile';
import { makeContext } from './context';
import { runLoop, type LoopOptions, type RunCarrier } from './loop';
import { driveState, type StepResult } from './run';
import type { RunState } from './state';
import type { CallResult, EngineCall } from './step';

/** The state one item's body starts from: the run's values as they are, the body's start on the path. */
export function itemState(canvas: CompiledCanvas, parent: RunState, request: IterationItemRequest): RunState | { problem: string } {
  const start = canvas.loopStarts[request.iterationId];
  if (!start) return { problem: `Iteration ${request.iterationId} has no IterationItem to start its items at` };
  const { outputs, globals, history, inputs } = copyJson({ outputs: parent.outputs, globals: parent.globals, history: parent.history, inputs: parent.inputs });
  return {
    v: 2,
    runId: parent.runId,
    messageId: parent.messageId,
    status: 'running',
    startedAt: parent.startedAt,
    createdAt: parent.createdAt,
    path: [start],
    cursor: { position: 0, phase: { kind: 'next' } },
    calls: { pending: {}, groups: {}, deferred: {}, lastId: 0 },
    events: { lastSeq: 0 },
    display: { shownText: '', awaitingRender: [] },
    inputs,
    pause: null,
    form: { submitted: null, expired: null },
    outputs,
    nodeInputs: {},
    nodes: {},
    globals,
    history,
    memory: [...parent.memory],
    retrieval: [...parent.retrieval],
    reference: { chunks: {}, doc_aggs: {} },
    // What ran before the Iteration counts as on the path for the body's dependency checks.
    ranBefore: [...new Set([...parent.ranBefore, ...parent.path])],
    continueAt: null,
    steps: 0,
    error: null,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0 },
    toolCalling: parent.toolCalling,
    // The item's pass: IterationItem yields items[index].
    loops: { [start]: request.index },
    ...(parent.parallelItems ? { parallelItems: true } : {}),
    lane: { iterationId: request.iterationId, index: request.index },
  };
}

/** What an item's finished body gives its Iteration, or why the item failed (RAGFlow: `item N: …`). */
export function itemResult(canvas: CompiledCanvas, request: IterationItemRequest, state: RunState, callId: string): CallResult {
  const { iterationId, index } = request;
  if (state.status === 'paused')
    return { callId, ok: false, error: `item ${index}: a form cannot wait inside an item of a parallel Iteration (set max_concurrency to 0)` };
  if (state.status !== 'finished') return { callId, ok: false, error: `item ${index}: ${state.error ?? `the item ended ${state.status}`}` };
  const ctx = makeContext(canvas, state, iterationId, 0);
  const declared = (canvas.nodes[iterationId]?.params as { outputs?: Record<string, unknown> } | undefined)?.outputs ?? {};
  const value: IterationItemResult = { values: passValues(ctx, iterationId, declared), usage: { ...state.usage } };
  return { callId, ok: true, value };
}

/** The carrier an item's body runs with: the run's calls and cancel, no events, no pause, no hand-over. */
function itemCarrier(base: RunCarrier<unknown>, carry: (call: EngineCall) => Promise<CallResult>): RunCarrier<never> {
  return {
    now: base.now,
    record: () => undefined,
    carry,
    guard: (round) => round(),
    isCancellation: base.isCancellation,
    cancelReason: base.cancelReason,
    waitAtPause: () => Promise.resolve({ kind: 'stop' }),
    shouldHandOver: () => false,
    handOver: () => Promise.reject(new Error('an item of a parallel Iteration is never handed over')),
  };
}

/**
 * A fork inside an item of a parallel Iteration (src/core/engine/forkPoint.ts): the values of the
 * items before the forked one, as the source run's items gave them. The fork's Iteration takes
 * them instead of running those items, the first time it runs (a later pass of an enclosing loop
 * runs every item).
 */
export interface ReusedItems {
  iterationId: string;
  values: Array<Record<string, unknown>>;
}

/** The answer to an item call the fork reuses; null when the item runs. */
function reusedItem(reuse: ReusedItems | undefined, state: RunState, request: IterationItemRequest, callId: string): CallResult | null {
  if (!reuse || request.iterationId !== reuse.iterationId || request.index >= reuse.values.length) return null;
  if (state.path.indexOf(reuse.iterationId) !== state.path.lastIndexOf(reuse.iterationId)) return null;
  const value: IterationItemResult = {
    values: copyJson(reuse.values[request.index]!),
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0 },
  };
  return { callId, ok: true, value };
}

/**
 * Wraps a carrier so that it carries parallel Iteration items itself: each item's body runs
 * through the run loop with `carry` for its calls (ids prefixed with the item's, so they never
 * meet the run's own). Items nested in items are carried the same way. A fork's `reuse` answers
 * the items before its forked one with the source's values.
 */
export function carryingItems<H>(
  canvas: CompiledCanvas,
  base: RunCarrier<H>,
  options: LoopOptions,
  carry: (call: EngineCall) => Promise<CallResult> = (c) => base.carry(c),
  reuse?: ReusedItems,
): RunCarrier<H> {
  let current: StepResult | null = null;
  const carryItem = async (call: EngineCall): Promise<CallResult> => {
    if (call.call.activity !== 'iterationItem' || !current) return { callId: call.callId, ok: false, error: 'an item call came with no run to take it from' };
    const request = call.call.request;
    const reused = reusedItem(reuse, current.state, request, call.callId);
    if (reused) return reused;
    const state = itemState(canvas, current.state, request);
    if ('problem' in state) return { callId: call.callId, ok: false, error: state.problem };
    const inner = carryingItems(
      canvas,
      itemCarrier(base as RunCarrier<unknown>, async (c) => ({ ...(await carry({ ...c, callId: `${call.callId}/${c.callId}` })), callId: c.callId })),
      options,
    );
    const end = await runLoop(canvas, driveState(canvas, state, base.now(), options), inner, options);
    return end.kind === 'step' ? itemResult(canvas, request, end.step.state, call.callId) : { callId: call.callId, ok: false, error: 'handed over' };
  };
  return {
    ...base,
    carry: (call) => (call.call.activity === 'iterationItem' ? carryItem(call) : base.carry(call)),
    observe: (s) => {
      current = s;
      base.observe?.(s);
    },
  };
}
