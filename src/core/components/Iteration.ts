/**
 * Iteration: for-each over a list. Its body are the components whose `parent_id` is this one,
 * starting at its IterationItem; each pass's outputs are collected into the Iteration's outputs
 * (declared as `outputs: {name: {ref: "Body:X@out"}}`). RAGFlow's path semantics: after the
 * Iteration runs, the path goes to its IterationItem; when the items are done, to its downstream.
 *
 * `max_concurrency` (RAGFlow's Go `Parallel`): 0 or absent runs the items one after another as
 * above; N > 0 runs up to N items' bodies at once (src/core/engine/parallelItems.ts), and the
 * collected lists keep the items' order whatever order they finish in. The first failed item fails
 * the Iteration (`item N: …`), as RAGFlow's does.
 */
import { z } from 'zod';
import { bareRef, executionParamsShape, str } from './common';
import { resolveLooseRef } from './loops';
import type { CallOutcome, ComponentContext, ComponentDef, Outcome } from './definition';
import type { IterationItemResult } from './callContracts';
import { lazySchema } from '../dsl/lazySchema';

const IterationParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    items_ref: str(''),
    variable: z.unknown().optional(),
    max_concurrency: z.unknown().optional(),
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

/** RAGFlow Go's `max_concurrency`: a number, truncated (its `intFrom`); 0, absent, negative or text = sequential. */
export function maxConcurrency(p: IterationParams): number {
  const v = p.max_concurrency;
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.trunc(v) : 0;
}

/**
 * Items per round of calls: between rounds the workflow may hand over to a fresh execution, so a
 * fan-out of any length keeps each execution's history bounded (500 items ≈ 3,000 events at most).
 */
export const ITEMS_PER_ROUND = 500;

/** What a parallel fan-out carries from one round to the next: the values of the items done, in order. */
interface FanOutMemo {
  done: Array<Record<string, unknown>>;
}

/** The calls of items [from, from + ITEMS_PER_ROUND), at most `limit` in flight. */
function itemRound(iterationId: string, from: number, total: number, limit: number, done: FanOutMemo['done']): Outcome {
  const indices = Array.from({ length: Math.min(ITEMS_PER_ROUND, total - from) }, (_, i) => from + i);
  return {
    kind: 'calls',
    calls: indices.map((index) => ({ call: { activity: 'iterationItem', request: { iterationId, index } }, summary: `item ${index}` })),
    maxConcurrency: limit,
    memo: { done } satisfies FanOutMemo,
  };
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
    const limit = maxConcurrency(p);
    if (ctx.parallelItems && limit > 0 && r.items.length > 0) return { ...itemRound(ctx.id, 0, r.items.length, limit, []), inputs: { items: r.items } };
    return { kind: 'done', outputs: Object.fromEntries(collectedOutputs(p).map((k) => [k, []])), inputs: { items: r.items } };
  },
  /** A round of a parallel fan-out is back: the next round, or each collected output listing the items' values in item order. */
  onResult(p, ctx, results, memo) {
    const outcomes = results as CallOutcome[];
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) return { kind: 'error', message: failed.error };
    const done = [...((memo as FanOutMemo | undefined)?.done ?? []), ...outcomes.map((o) => (o.ok ? (o.value as IterationItemResult).values : {}))];
    const r = iterationItems(p, ctx);
    if (r.ok && done.length < r.items.length) return itemRound(ctx.id, done.length, r.items.length, maxConcurrency(p), done);
    const outputs: Record<string, unknown[]> = Object.fromEntries(collectedOutputs(p).map((k) => [k, []]));
    for (const values of done) for (const [key, value] of Object.entries(values)) (outputs[key] ??= []).push(value);
    return { kind: 'done', outputs };
  },
};
