/**
 * Iteration: for-each over a list. Its body are the components whose `parent_id` is this one,
 * starting at its IterationItem; each pass's outputs are collected into the Iteration's outputs
 * (declared as `outputs: {name: {ref: "Body:X@out"}}`). RAGFlow's path semantics: after the
 * Iteration runs, the path goes to its IterationItem; when the items are done, to its downstream.
 */
import { z } from 'zod';
import { bareRef, executionParamsShape, str } from './common';
import { resolveLooseRef } from './loops';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const IterationParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    items_ref: str(''),
    variable: z.unknown().optional(),
  }),
);

export type IterationParams = z.infer<typeof IterationParams>;

/** The list an Iteration goes over; a JSON array given as text (a model's answer) counts. */
export function iterationItems(p: IterationParams, ctx: ComponentContext): { ok: true; items: unknown[] } | { ok: false; error: string } {
  const r = resolveLooseRef(ctx, p.items_ref);
  if (!r.ok) return { ok: false, error: `items_ref "${p.items_ref}" is not a variable reference` };
  let value = r.value;
  if (typeof value === 'string' && value.trim().startsWith('[')) {
    try {
      value = JSON.parse(value);
    } catch {
      // reported below as not a list
    }
  }
  if (!Array.isArray(value))
    return { ok: false, error: `${p.items_ref} must be an array, but its type is ${value === null || value === undefined ? 'None' : typeof value}` };
  return { ok: true, items: value };
}

/** The declared outputs that collect body values. */
function collectedOutputs(p: IterationParams): string[] {
  return Object.entries(p.outputs)
    .filter(([, o]) => typeof o === 'object' && o !== null && typeof (o as { ref?: unknown }).ref === 'string')
    .map(([k]) => k);
}

export const Iteration: ComponentDef<IterationParams> = {
  name: 'Iteration',
  params: IterationParams,
  role: 'container',
  execution: 'inline',
  outputNames: (p) => collectedOutputs(p),
  inputRefs: () => [],
  paramRefs: (p) => bareRef(['items_ref'], p.items_ref),
  thoughts: (p, ctx) => {
    const r = iterationItems(p, ctx);
    return r.ok ? `Need to process ${r.items.length} items.` : 'Need to process the items one by one...';
  },
  run(p, ctx) {
    const r = iterationItems(p, ctx);
    if (!r.ok) return { kind: 'error', message: r.error };
    return { kind: 'done', outputs: Object.fromEntries(collectedOutputs(p).map((k) => [k, []])), inputs: { items: r.items } };
  },
};
