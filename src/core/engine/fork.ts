/**
 * Time travel (docs/ARCHITECTURE.md, "Time travel"): a fork starts a new run from another run's
 * batch snapshot (./snapshots.ts), so the components before it are not run again. Their outputs,
 * the path, variables, conversation history and retrieval state are the source run's as they
 * stood just before the batch; the batch and everything after it run on the fork's canvas.
 * Pure: the API picks the snapshot, the workflow loads it and calls {@link forkRun}.
 */
import { copyJson } from '../dsl/jsonCopy';
import type { Problem } from '../../errors';
import type { CompiledCanvas } from './compile';
import { resumeRun, type EngineOptions, type StepResult } from './run';
import type { BatchSnapshot } from './snapshots';
import { ZERO_USAGE, type NodeState, type RunState } from './state';

/** A snapshot as listed (without its state). */
export type SnapshotEntry = Omit<BatchSnapshot, 'state'>;

/** What a fork changes in the state it starts from. */
export interface ForkStart {
  runId: string;
  messageId: string;
  /**
   * Values the forked components read, by variable: `<component_id>@<output>` replaces a reused
   * component's output, `sys.<name>` / `env.<name>` a variable.
   */
  overrides: Record<string, unknown>;
}

/** The state a fork starts from: the snapshot's, as a new run's (its ids, a fresh clock and usage). */
export function forkState(snapshot: RunState, start: ForkStart, now: number): RunState {
  const state = copyJson(snapshot);
  state.runId = start.runId;
  state.messageId = start.messageId;
  state.status = 'running';
  state.startedAt = now;
  state.createdAt = Math.floor(now / 1000);
  state.error = null;
  state.pause = null;
  state.form = { submitted: null, expired: null };
  // The API recorded the fork's workflow_started (event 1), as it does for every run.
  state.events = { lastSeq: 1 };
  // Usage is what this run spent; what it reused is its savings (savingsOf).
  state.usage = { ...ZERO_USAGE };
  for (const [key, value] of Object.entries(start.overrides)) {
    const at = key.indexOf('@');
    if (at > 0) state.outputs[key.slice(0, at)] = { ...state.outputs[key.slice(0, at)], [key.slice(at + 1)]: value };
    else state.globals[key] = value;
  }
  return state;
}

/** Starts the fork: on from the snapshot's batch, as any run goes on. */
export function forkRun(canvas: CompiledCanvas, snapshot: RunState, start: ForkStart, now: number, options: EngineOptions = {}): StepResult {
  return resumeRun(canvas, forkState(snapshot, start, now), [], now, options);
}

/** The components a fork from `snapshot` reuses: those the source ran before that batch. */
export function reusedComponents(snapshot: RunState): string[] {
  return [...new Set(snapshot.path.slice(0, snapshot.cursor.position))].filter((id) => snapshot.nodes[id]?.status === 'finished');
}

export interface Savings {
  /** Model and tool calls the new run did not make (the reused components' recorded calls). */
  calls_avoided: number;
  /** Calls of components that reported tokens (model calls; an Agent's tool rounds count here). */
  model_calls_avoided: number;
  /** Calls of components that reported no tokens (tools, retrieval, HTTP). */
  tool_calls_avoided: number;
  /** The recorded tokens of the calls not made. */
  tokens_saved: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  components: { component_id: string; calls: number; total_tokens: number }[];
}

const noSavings = (): Savings => ({
  calls_avoided: 0,
  model_calls_avoided: 0,
  tool_calls_avoided: 0,
  tokens_saved: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  components: [],
});

/** Adds a reused component's recorded calls (one pass of it) to the savings. */
function addNode(s: Savings, id: string, ns: NodeState | undefined): void {
  if (!ns || ns.calls === 0) return;
  s.calls_avoided += ns.calls;
  if (ns.usage.total_tokens > 0) s.model_calls_avoided += ns.calls;
  else s.tool_calls_avoided += ns.calls;
  s.tokens_saved.prompt_tokens += ns.usage.prompt_tokens;
  s.tokens_saved.completion_tokens += ns.usage.completion_tokens;
  s.tokens_saved.total_tokens += ns.usage.total_tokens;
  const row = s.components.find((c) => c.component_id === id);
  if (row) {
    row.calls += ns.calls;
    row.total_tokens += ns.usage.total_tokens;
  } else s.components.push({ component_id: id, calls: ns.calls, total_tokens: ns.usage.total_tokens });
}

/** What reusing `components` of the snapshot saved, from their recorded node states. */
export function savingsOf(snapshot: RunState, components: readonly string[]): Savings {
  const s = noSavings();
  for (const id of components) addNode(s, id, snapshot.nodes[id]);
  return s;
}

/** Whether `id` is in the body of `loopId`, at any depth. */
export function inLoop(canvas: CompiledCanvas, id: string, loopId: string): boolean {
  for (let p = canvas.nodes[id]?.parentId ?? null; p; p = canvas.nodes[p]?.parentId ?? null) if (p === loopId) return true;
  return false;
}

/**
 * What a fork at pass `passes.length - 1` of `loopId` saved: the components outside the loop as
 * {@link savingsOf}, and each earlier pass's body components from the snapshot of the pass after
 * it (a node's state holds its last pass only). `states[j]` is the snapshot of `passes[j]`.
 */
export function passSavings(
  canvas: CompiledCanvas,
  loopId: string,
  passes: readonly SnapshotEntry[],
  states: readonly RunState[],
  reused: readonly string[],
): Savings {
  const last = states[states.length - 1]!;
  const s = savingsOf(
    last,
    reused.filter((id) => !inLoop(canvas, id, loopId)),
  );
  for (let j = 1; j < passes.length; j++) {
    const ran = new Set(states[j]!.path.slice(passes[j - 1]!.position, passes[j]!.position));
    for (const id of ran) if (inLoop(canvas, id, loopId) && states[j]!.nodes[id]?.status === 'finished') addNode(s, id, states[j]!.nodes[id]);
  }
  return s;
}

/** Problems with a fork's `inputs` (by JSON path): each must name a reused component's output or a `sys.`/`env.` variable. */
export function overrideProblems(snapshot: RunState, overrides: Record<string, unknown>, reused: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  for (const key of Object.keys(overrides)) {
    const at = key.indexOf('@');
    const path = `$.inputs[${JSON.stringify(key)}]`;
    if (at > 0) {
      const id = key.slice(0, at);
      if (!reused.includes(id) && !(id in snapshot.outputs))
        problems.push({ path, message: `${id} did not run before the fork point: only the outputs of reused components can be replaced` });
    } else if (!key.startsWith('sys.') && !key.startsWith('env.')) {
      problems.push({ path, message: 'must be <component_id>@<output>, sys.<name> or env.<name>' });
    }
  }
  return problems;
}
