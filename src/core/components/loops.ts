/**
 * What Iteration and Loop share: finding a loop's parts in the canvas, and writing collected
 * values to the loop component's outputs (RAGFlow's `output_collation`).
 */
import { parseRef, type VariableRef } from '../dsl/refs';
import type { ComponentContext, VariableWrite } from './definition';

/** A write to output `key` of component `id`. */
export function outputWrite(id: string, key: string, value: unknown): VariableWrite {
  const ref: VariableRef = { kind: 'component', componentId: id, output: key, path: [], expr: `${id}@${key}` };
  return { ref, value };
}

/** The enclosing loop of a loop item or ExitLoop. */
export function parentOf(ctx: ComponentContext): string | null {
  return ctx.canvas.parentId(ctx.id);
}

/** A reference given bare (`cpn@out`) or braced (`{cpn@out}`). */
export function resolveLooseRef(ctx: ComponentContext, text: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof text !== 'string' || !text.trim()) return { ok: false };
  const ref = parseRef(text);
  if (!ref) return { ok: false };
  return { ok: true, value: ctx.resolve(ref) };
}

/** Body components whose outputs an Iteration collects when it declares none (legacy canvases). */
const NOT_COLLECTED = new Set(['IterationItem', 'LoopItem', 'Message', 'Categorize', 'Switch', 'UserFillUp', 'ExitLoop']);

/**
 * Appends this pass's values to the Iteration's collected outputs: each declared output
 * `{ref: "cpn@out"}` collects that body output; an Iteration that declares none collects each
 * body component's `content` under the component's id (how early RAGFlow canvases read it).
 */
export function collectPass(ctx: ComponentContext, iterationId: string, declared: Record<string, unknown>): VariableWrite[] {
  const current = ctx.outputsOf(iterationId);
  const writes: VariableWrite[] = [];
  const refs = Object.entries(declared).filter(([, o]) => typeof o === 'object' && o !== null && typeof (o as { ref?: unknown }).ref === 'string');
  if (refs.length > 0) {
    for (const [key, o] of refs) {
      const ref = parseRef((o as { ref: string }).ref);
      if (!ref || ref.kind !== 'component' || ctx.canvas.parentId(ref.componentId) !== iterationId) continue;
      const list = Array.isArray(current[key]) ? [...(current[key] as unknown[])] : [];
      list.push(ctx.resolve(ref));
      writes.push(outputWrite(iterationId, key, list));
    }
    return writes;
  }
  for (const child of ctx.canvas.childrenOf(iterationId)) {
    if (NOT_COLLECTED.has(ctx.canvas.typeOf(child))) continue;
    const out = ctx.outputsOf(child);
    if (!('content' in out)) continue;
    const list = Array.isArray(current[child]) ? [...(current[child] as unknown[])] : [];
    list.push(out.content);
    writes.push(outputWrite(iterationId, child, list));
  }
  return writes;
}

/**
 * One pass's values of what an Iteration collects, by output (what {@link collectPass} appends):
 * a parallel Iteration's item gives these, and the Iteration lists them in item order.
 */
export function passValues(ctx: ComponentContext, iterationId: string, declared: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const refs = Object.entries(declared).filter(([, o]) => typeof o === 'object' && o !== null && typeof (o as { ref?: unknown }).ref === 'string');
  if (refs.length > 0) {
    for (const [key, o] of refs) {
      const ref = parseRef((o as { ref: string }).ref);
      if (ref && ref.kind === 'component' && ctx.canvas.parentId(ref.componentId) === iterationId) values[key] = ctx.resolve(ref);
    }
    return values;
  }
  for (const child of ctx.canvas.childrenOf(iterationId)) {
    if (NOT_COLLECTED.has(ctx.canvas.typeOf(child))) continue;
    const out = ctx.outputsOf(child);
    if ('content' in out) values[child] = out.content;
  }
  return values;
}
