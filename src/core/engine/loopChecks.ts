/**
 * The compiler's loop checks: each Iteration or Loop has exactly one item of its kind, and items
 * and ExitLoops sit inside the right loop. A component whose own params are invalid is reported
 * there only, not again as a loop or an item missing. Pure.
 */
import type { PathSegment } from '../dsl/jsonPath';
import type { Problem } from '../../errors';
import type { CompiledNode } from './compiled';

/** A component whose params did not validate: its consequences elsewhere are not reported again. */
export interface FailedComponent {
  type: string;
  parentId: string | null;
}

const LOOP_ITEM_OF: Readonly<Record<string, string>> = { Iteration: 'IterationItem', Loop: 'LoopItem' };

/** Each loop has exactly one item of its kind; items and ExitLoops sit inside the right loop. */
export function checkLoops(
  nodes: Record<string, CompiledNode>,
  failed: ReadonlyMap<string, FailedComponent>,
  at: (id: string, ...rest: PathSegment[]) => string,
): { starts: Record<string, string>; problems: Problem[] } {
  const starts: Record<string, string> = {};
  const problems: Problem[] = [];
  for (const node of Object.values(nodes)) {
    if (node.role === 'container') {
      const kind = LOOP_ITEM_OF[node.type];
      const items = Object.values(nodes).filter((n) => n.parentId === node.id && n.type === kind);
      // An item whose own params are invalid is reported there, not again here.
      const invalidItem = [...failed.values()].some((f) => f.parentId === node.id && f.type === kind);
      if (items.length !== 1 && !(items.length === 0 && invalidItem)) {
        const orphans = Object.values(nodes).filter((n) => n.type === kind && (!n.parentId || !nodes[n.parentId]));
        const hint =
          items.length === 0 && orphans.length > 0
            ? ` (${orphans.map((o) => `${kind} "${o.id}" has ${o.parentId ? `parent_id "${o.parentId}"` : 'no parent_id'}`).join(', ')})`
            : '';
        problems.push({
          path: at(node.id),
          message: `${node.type} "${node.id}" needs exactly one ${kind} with parent_id "${node.id}", found ${items.length}${hint}`,
        });
      } else if (items.length === 1) starts[node.id] = items[0]!.id;
    } else if (node.role === 'loopItem' || node.role === 'exitLoop') {
      // A loop whose own params are invalid is reported there, not again at its items.
      if (node.parentId && failed.has(node.parentId)) continue;
      const parent = node.parentId ? nodes[node.parentId] : undefined;
      const wanted = node.type === 'IterationItem' ? ['Iteration'] : node.type === 'LoopItem' ? ['Loop'] : ['Loop'];
      if (!parent || !wanted.includes(parent.type))
        problems.push({ path: at(node.id, 'parent_id'), message: `${node.type} "${node.id}" must be inside a ${wanted.join(' or ')} (its parent_id)` });
    }
  }
  return { starts, problems };
}
