/**
 * Cycle check. A cycle in the canvas graph is legal only when something breaks it at run time:
 * a loop construct (Iteration/Loop bodies return to their IterationItem/LoopItem) or a turn
 * boundary (a legacy Answer, or a UserFillUp pause). Anything else would spin forever.
 */
import { formatJsonPath, type PathSegment } from '../dsl/jsonPath';
import type { CanvasDsl } from '../dsl/schema';
import type { Problem } from '../../errors';
import type { CompiledNode } from './compiled';

const CYCLE_BREAKERS = new Set(['Answer', 'UserFillUp', 'Iteration', 'IterationItem', 'Loop', 'LoopItem']);

function successors(id: string, dsl: CanvasDsl, nodes: Readonly<Record<string, CompiledNode>>): string[] {
  const comp = dsl.components[id];
  if (!comp) return [];
  const node = nodes[id];
  const extra = node ? [...(node.def.targets?.(node.params) ?? []).map((t) => t.target), ...node.params.exception_goto] : [];
  return [...new Set([...comp.downstream, ...extra])].filter((s) => s in dsl.components);
}

/** Strongly connected components (Tarjan), iteratively to survive large canvases. */
function stronglyConnected(ids: string[], next: (id: string) => string[]): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  for (const start of ids) {
    if (idx.has(start)) continue;
    const work: Array<{ id: string; succ: string[]; i: number }> = [];
    const push = (id: string) => {
      idx.set(id, index);
      low.set(id, index);
      index++;
      stack.push(id);
      onStack.add(id);
      work.push({ id, succ: next(id), i: 0 });
    };
    push(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.succ.length) {
        const s = frame.succ[frame.i++]!;
        if (!idx.has(s)) push(s);
        else if (onStack.has(s)) low.set(frame.id, Math.min(low.get(frame.id)!, idx.get(s)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === idx.get(frame.id)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          scc.push(w);
        } while (w !== frame.id);
        out.push(scc);
      }
    }
  }
  return out;
}

/** One concrete cycle through `start` inside `members`, for the message. */
function cycleThrough(start: string, members: Set<string>, next: (id: string) => string[]): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length > 0) {
    const cur = queue.shift()!;
    for (const s of next(cur)) {
      if (!members.has(s)) continue;
      if (s === start) {
        const path = [cur];
        while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
        return [...path, start];
      }
      if (!seen.has(s)) {
        seen.add(s);
        prev.set(s, cur);
        queue.push(s);
      }
    }
  }
  return [start, start];
}

export function findCycleProblems(dsl: CanvasDsl, nodes: Readonly<Record<string, CompiledNode>>, base: PathSegment[]): Problem[] {
  const ids = Object.keys(dsl.components);
  const next = (id: string) => successors(id, dsl, nodes);
  const problems: Problem[] = [];
  for (const scc of stronglyConnected(ids, next)) {
    const members = new Set(scc);
    const isCycle = scc.length > 1 || next(scc[0]!).includes(scc[0]!);
    if (!isCycle) continue;
    if (scc.some((id) => CYCLE_BREAKERS.has(dsl.components[id]?.obj.component_name ?? ''))) continue;
    const first = ids.find((id) => members.has(id))!;
    const cycle = cycleThrough(first, members, next);
    problems.push({
      path: formatJsonPath([...base, 'components', first, 'downstream'], '$'),
      message: `cycle ${cycle.join(' → ')} is not broken by a Loop/Iteration or a turn boundary (Answer, UserFillUp)`,
    });
  }
  return problems;
}
