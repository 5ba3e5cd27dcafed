/**
 * Where a fork starts (docs/ARCHITECTURE.md, "Time travel"): the batch snapshot of the source run
 * a fork from `from` restarts at. Outside loops, the batch that first ran `from`. Inside an item
 * of a sequential Iteration or a pass of a Loop, the batch that started that item (the run keeps
 * one per pass, ./snapshots.ts): the earlier items' results stand as they were, the item restarts
 * at its start, the later ones run. Inside an item of a parallel Iteration, the Iteration's batch,
 * with the earlier items' values taken from the source ({@link reusedItemValues}). Pure.
 */
import type { Problem } from '../../errors';
import type { CompiledCanvas } from './compile';
import { inLoop, type SnapshotEntry } from './fork';
import type { RunState } from './state';

export type ForkPoint =
  /** `from` is in no loop: the batch that first ran it. */
  | { kind: 'component'; entry: SnapshotEntry }
  /** In an item of a sequential Iteration or a Loop pass: the batch that started it; `passes` are the loop's pass batches up to it. */
  | { kind: 'pass'; entry: SnapshotEntry; loopId: string; item: number; passes: SnapshotEntry[] }
  /** In an item of a parallel Iteration: the Iteration's batch; the items before `item` are the source's. */
  | { kind: 'items'; entry: SnapshotEntry; iterationId: string; item: number };

/** Which item: its index (0-based, IterationItem's `index`; a Loop's pass), the last one the source started, or the first. */
export type ItemChoice = number | 'last' | undefined;

const itemProblem = (message: string): { problem: Problem } => ({ problem: { path: '$.item', message } });
const fromProblem = (message: string): { problem: Problem } => ({ problem: { path: '$.from', message } });

/** The fork point of `from` (and `item`, inside a loop) among the source's snapshots. */
export function forkPoint(
  entries: readonly SnapshotEntry[],
  canvas: CompiledCanvas,
  runId: string,
  from: string,
  item: ItemChoice,
): ForkPoint | { problem: Problem } {
  const sorted = [...entries].sort((a, b) => a.position - b.position);
  const loopId = canvas.nodes[from]?.parentId ?? null;
  const start = loopId ? canvas.loopStarts[loopId] : undefined;
  if (!loopId || !start) {
    if (typeof item === 'number') return itemProblem(`${from} is in no Iteration or Loop: leave item out`);
    const entry = sorted.find((e) => e.components.includes(from));
    return entry ? { kind: 'component', entry } : fromProblem(`run ${runId} never reached ${from}`);
  }
  const passes = sorted.filter((e) => e.components.includes(start));
  if (passes.length === 0) {
    // A parallel Iteration's items run beside the run's path: only the Iteration's batch is kept.
    const entry = canvas.nodes[loopId]?.type === 'Iteration' ? sorted.find((e) => e.components.includes(loopId)) : undefined;
    if (!entry) return fromProblem(`run ${runId} never reached ${from}`);
    if (typeof item === 'number' && item < 0) return itemProblem('must be 0 or more');
    return { kind: 'items', entry, iterationId: loopId, item: typeof item === 'number' ? item : 0 };
  }
  const index = item === 'last' ? passes.length - 1 : (item ?? 0);
  if (index < 0 || index >= passes.length)
    return itemProblem(`run ${runId} started ${passes.length} pass(es) of ${loopId}: item must be 0 to ${passes.length - 1}`);
  return { kind: 'pass', entry: passes[index]!, loopId, item: index, passes: passes.slice(0, index + 1) };
}

/**
 * The snapshot that closes a pass: the next pass's, or the first batch after the loop. Null when
 * the source ended inside the pass. Its state's path from the pass's position shows what ran in it.
 */
export function passEnd(entries: readonly SnapshotEntry[], canvas: CompiledCanvas, point: Extract<ForkPoint, { kind: 'pass' }>): SnapshotEntry | null {
  const start = canvas.loopStarts[point.loopId]!;
  const after = [...entries].sort((a, b) => a.position - b.position).filter((e) => e.position > point.entry.position);
  return after.find((e) => e.components.includes(start) || e.components.some((c) => !inLoop(canvas, c, point.loopId))) ?? null;
}

/** Whether `from` ran in the pass that `end` (./passEnd) closes, read from `end`'s state. */
export function ranInPass(endState: RunState, pass: SnapshotEntry, end: SnapshotEntry, from: string): boolean {
  return endState.path.slice(pass.position, end.position).includes(from);
}

/**
 * The values the first `count` items of a parallel Iteration gave, from a source state after the
 * Iteration finished: each collected output lists one value per item, in item order.
 */
export function reusedItemValues(after: RunState, iterationId: string, count: number): Array<Record<string, unknown>> | { problem: Problem } {
  const items = (after.nodeInputs[iterationId] as { items?: unknown } | undefined)?.items;
  const outputs = after.outputs[iterationId] ?? {};
  if (after.nodes[iterationId]?.status !== 'finished' || !Array.isArray(items))
    return itemProblem(`the source's ${iterationId} did not finish its items, so none can be reused: fork at ${iterationId} to run them all`);
  if (count >= items.length) return itemProblem(`${iterationId} went over ${items.length} item(s): item must be 0 to ${items.length - 1}`);
  const lists = Object.entries(outputs).filter(([k, v]) => !k.startsWith('_') && Array.isArray(v)) as Array<[string, unknown[]]>;
  if (lists.some(([, v]) => v.length !== items.length))
    return itemProblem(`${iterationId}'s collected outputs do not list one value per item, so its items cannot be reused one by one: fork at ${iterationId}`);
  return Array.from({ length: count }, (_, i) => Object.fromEntries(lists.map(([k, v]) => [k, v[i]])));
}
