/**
 * The engine's public transitions. Each takes the compiled canvas, a state and what happened
 * (a start, call results, a cancel) plus the current time, and returns the next state, the events
 * to record and the calls to make. No I/O, no clock, no randomness: the workflow runs these, and
 * so do the unit tests.
 */
import { copyJson } from '../dsl/jsonCopy';
import { DEFAULT_GLOBALS } from '../dsl/schema';
import { pyJson } from '../dsl/refs';
import type { CompiledCanvas } from './compile';
import { nodeFinishedData, publicOutputs, type RunEvent } from './runEvents';
import { missingComponentError, postProcess } from './post';
import { emptySession, ZERO_USAGE, type RunState, type RunStatus } from './state';
import { checkPauseInputs } from './pause';
import { describeFieldProblems } from '../components/forms';
import type { RunStartInput } from './runInput';
import { newStep, receiveResult, type CallResult, type EngineCall, type Step } from './step';
import { pauseKept, startBatchKept, type BatchSnapshot } from './snapshots';
import { endInFlight } from './inFlight';

/** Guard against canvases that loop without end (component executions per run). */
export const DEFAULT_MAX_STEPS = 10_000;

export type { RunStartInput } from './runInput';

export interface StepResult {
  state: RunState;
  events: RunEvent[];
  calls: EngineCall[];
  /** running (calls pending), paused, finished, failed or canceled. */
  status: RunStatus;
  snapshots?: BatchSnapshot[]; // the state before each batch it started, when asked for (./snapshots.ts)
}

/** Each step advances a copy: the previous state stays as it was (events already emitted hold parts of it). */
function clone<T>(value: T): T {
  return copyJson(value);
}

/** `sys.date` as RAGFlow formats it (UTC here: the engine has no time zone). */
export function formatSysDate(nowMs: number): string {
  return new Date(nowMs).toISOString().replace('T', ' ').slice(0, 19);
}

function queryText(query: unknown): string {
  if (query === null || query === undefined) return '';
  return typeof query === 'string' ? query : pyJson(query);
}

function initialState(canvas: CompiledCanvas, input: RunStartInput, now: number): RunState {
  const session = input.session ?? emptySession();
  const globals: Record<string, unknown> = { ...DEFAULT_GLOBALS, ...canvas.dsl.globals, ...canvas.envDefaults, ...session.globals };
  const history = [...session.history];
  globals['sys.date'] = formatSysDate(now);
  globals['sys.history'] = Array.isArray(globals['sys.history']) ? [...(globals['sys.history'] as unknown[])] : [];
  const newTurn = !input.greeting && !input.nested;
  if (newTurn) {
    history.push(['user', queryText(input.query)]);
    (globals['sys.history'] as unknown[]).push(`user: ${queryText(input.query)}`);
  }
  globals['sys.query'] = input.query ?? '';
  if (input.userId) globals['sys.user_id'] = input.userId;
  if (input.files && input.files.length > 0) globals['sys.files'] = input.files;
  const turns = Number(globals['sys.conversation_turns']) || 0;
  globals['sys.conversation_turns'] = newTurn ? turns + 1 : turns;
  const start = session.continueAt && session.continueAt.length > 0 ? session.continueAt : ['begin'];
  return {
    v: 2,
    runId: input.runId,
    messageId: input.messageId,
    status: 'running',
    startedAt: now,
    createdAt: Math.floor(now / 1000),
    path: [...start],
    cursor: { position: 0, phase: { kind: 'next' } },
    calls: { pending: {}, groups: {}, deferred: {}, lastId: 0 },
    events: { lastSeq: 0 },
    display: { shownText: '', awaitingRender: [] },
    inputs: { echo: input.inputs ?? null, values: input.inputs ?? {}, webhook: input.webhook ?? null },
    pause: null,
    form: { submitted: null, expired: null },
    outputs: {},
    nodeInputs: {},
    nodes: {},
    globals,
    history,
    memory: [...session.memory],
    retrieval: [...session.retrieval, { chunks: {}, doc_aggs: {} }],
    reference: { chunks: {}, doc_aggs: {} },
    ranBefore: [...session.ranBefore],
    continueAt: null,
    steps: 0,
    error: null,
    usage: { ...ZERO_USAGE },
    toolCalling: input.toolCalling ?? null,
    loops: {},
    ...(input.speech ? { speech: true } : {}),
    ...(input.parallelItems ? { parallelItems: true } : {}),
    ...(input.memorySave ? { memorySave: true } : {}),
  };
}

function fail(step: Step, message: string): void {
  const { state } = step;
  state.status = 'failed';
  state.error = message;
  state.calls.pending = {};
  state.calls.groups = {};
  step.sink.emit('run_failed', { error: message });
}

function finish(step: Step): void {
  const { state, canvas } = step;
  for (const id of state.display.awaitingRender.splice(0)) {
    // A model answer planned for a Message that never rendered: nothing consumed it.
    delete state.calls.deferred[id];
    step.sink.emit('node_finished', nodeFinishedData(canvas, state, id, step.now));
  }
  const last = state.path[state.path.length - 1];
  const outputs = last ? publicOutputs(state.outputs[last]) : {};
  step.sink.emit('workflow_finished', {
    inputs: state.inputs.echo,
    outputs,
    elapsed_time: (step.now - state.startedAt) / 1000,
    created_at: state.startedAt / 1000,
    usage: { ...state.usage },
  });
  const content = outputs.content;
  const text = content === null || content === undefined ? '' : typeof content === 'string' ? content : pyJson(content);
  state.history.push(['assistant', text]);
  (state.globals['sys.history'] as unknown[]).push(`assistant: ${text}`);
  state.status = 'finished';
}

/** Advances until the run needs call results, pauses, or ends. */
function drive(step: Step, maxSteps: number, snapshots?: BatchSnapshot[]): void {
  const { state, canvas } = step;
  while (state.status === 'running') {
    const phase = state.cursor.phase;
    if (phase.kind === 'next') {
      if (pauseKept(step, snapshots)) return;
      if (state.cursor.position >= state.path.length) return finish(step);
      if (state.steps >= maxSteps) return fail(step, `The run stopped after ${maxSteps} component executions: the canvas seems to loop without end`);
      // A conversation's next turn may start at an Answer's downstream that names no component.
      const missing = state.path.slice(state.cursor.position).find((id) => !canvas.nodes[id]);
      if (missing) return fail(step, missingComponentError(missing));
      const to = startBatchKept(step, snapshots);
      state.cursor.phase = { kind: 'batch', to };
      continue;
    }
    if (phase.kind === 'batch') {
      if (Object.keys(state.calls.pending).length > 0) return;
      state.cursor.phase = { kind: 'post', to: phase.to, i: state.cursor.position, cursor: null };
      continue;
    }
    if (postProcess(step) === 'wait') return;
    if (state.error) return fail(step, state.error);
    state.cursor.position = phase.to;
    state.cursor.phase = { kind: 'next' };
  }
}

function result(step: Step, snapshots?: BatchSnapshot[]): StepResult {
  return { state: step.state, events: step.sink.events, calls: step.calls, status: step.state.status, ...(snapshots?.length ? { snapshots } : {}) };
}

export interface EngineOptions {
  maxSteps?: number;
  snapshots?: boolean; // keep the state before each batch (./snapshots.ts)
}

function advance(step: Step, options: EngineOptions): StepResult {
  const snapshots = options.snapshots ? [] : undefined;
  drive(step, options.maxSteps ?? DEFAULT_MAX_STEPS, snapshots);
  return result(step, snapshots);
}

/** Starts a run: `workflow_started`, then as far as it gets without call results. */
export function startRun(canvas: CompiledCanvas, input: RunStartInput, now: number, options: EngineOptions = {}): StepResult {
  const state = initialState(canvas, input, now);
  const step = newStep(canvas, state, now);
  if (input.announced) state.events.lastSeq = 1;
  else step.sink.emit('workflow_started', { inputs: state.inputs.echo });
  return advance(step, options);
}

/** Advances a state built elsewhere (a parallel Iteration's item, parallelItems.ts) as far as it gets. */
export function driveState(canvas: CompiledCanvas, state: RunState, now: number, options: EngineOptions = {}): StepResult {
  const step = newStep(canvas, state, now);
  drive(step, options.maxSteps ?? DEFAULT_MAX_STEPS);
  return result(step);
}

/** Continues a run with the results of calls it asked for. */
export function resumeRun(canvas: CompiledCanvas, prev: RunState, results: CallResult[], now: number, options: EngineOptions = {}): StepResult {
  const state = clone(prev);
  const step = newStep(canvas, state, now);
  for (const r of results) receiveResult(step, r);
  return advance(step, options);
}

/** What a person submits to a paused run. */
export interface InputsSubmission {
  inputs: Record<string, unknown>;
  /** Text sent along (RAGFlow's query on the resuming request): becomes `sys.query` and a user turn. */
  query?: unknown;
}

/**
 * Resumes a paused run with the submitted form values. The caller checks them first with
 * {@link checkPauseInputs}; values that do not fit the form are refused here too.
 */
export function submitInputs(
  canvas: CompiledCanvas,
  prev: RunState,
  submission: InputsSubmission,
  now: number,
  options: EngineOptions = {},
): StepResult | { error: string } {
  const check = checkPauseInputs(prev, submission.inputs);
  if (!check.ok) return { error: describeFieldProblems(check.problems) };
  const state = clone(prev);
  const step = newStep(canvas, state, now);
  state.form.submitted = check.values;
  state.pause = null;
  state.status = 'running';
  const query = submission.query;
  if (query !== undefined && query !== null && query !== '') {
    state.globals['sys.query'] = query;
    state.history.push(['user', queryText(query)]);
    (state.globals['sys.history'] as unknown[]).push(`user: ${queryText(query)}`);
  }
  return advance(step, options);
}

/**
 * The wait of a paused run expired: its form components fail with a timeout, and their
 * exception handling decides (`goto`, a default value, or the run fails).
 */
export function expirePause(canvas: CompiledCanvas, prev: RunState, waitedS: number | null, now: number, options: EngineOptions = {}): StepResult {
  const state = clone(prev);
  const step = newStep(canvas, state, now);
  if (state.status !== 'paused') return result(step);
  state.form.expired = { waitedS };
  state.pause = null;
  state.status = 'running';
  return advance(step, options);
}

export const CANCELED_MESSAGE = 'Task has been canceled';

/**
 * Cancels a run: nodes in flight finish with RAGFlow's cancel error, then `run_canceled` and
 * RAGFlow's `workflow_finished` with "Task has been canceled" as outputs.
 */
export function cancelRun(canvas: CompiledCanvas, prev: RunState, reason: string, now: number): StepResult {
  const state = clone(prev);
  const step = newStep(canvas, state, now);
  if (state.status === 'finished' || state.status === 'failed' || state.status === 'canceled') return result(step);
  endInFlight(canvas, state, step, 'canceled', CANCELED_MESSAGE, now);
  step.sink.emit('run_canceled', { reason });
  step.sink.emit('workflow_finished', {
    inputs: state.inputs.echo,
    outputs: CANCELED_MESSAGE,
    elapsed_time: (now - state.startedAt) / 1000,
    created_at: state.startedAt / 1000,
    usage: { ...state.usage },
  });
  state.status = 'canceled';
  state.error = CANCELED_MESSAGE;
  return result(step);
}
