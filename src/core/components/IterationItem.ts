/**
 * IterationItem: the start of an Iteration's body, run once per item. It yields `item` and
 * `index` (and `result`, the same value, for older canvases), collects the previous pass's body
 * outputs into the Iteration, and ends the loop after the last item.
 */
import { z } from 'zod';
import { iterationItems, type IterationParams } from './Iteration';
import { executionParamsShape } from './common';
import { collectPass, parentOf } from './loops';
import type { ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const IterationItemParams = lazySchema(() => z.looseObject({ ...executionParamsShape }));

export type IterationItemParams = z.infer<typeof IterationItemParams>;

export const IterationItem: ComponentDef<IterationItemParams> = {
  name: 'IterationItem',
  params: IterationItemParams,
  role: 'loopItem',
  execution: 'inline',
  outputNames: () => ['item', 'index', 'result'],
  inputRefs: () => [],
  thoughts: () => 'Next turn...',
  run(_p, ctx) {
    const parent = parentOf(ctx);
    if (!parent || ctx.canvas.typeOf(parent) !== 'Iteration') return { kind: 'error', message: `IterationItem ${ctx.id} is not inside an Iteration` };
    const parentParams = ctx.paramsOf(parent) as IterationParams;
    const r = iterationItems(parentParams, ctx);
    if (!r.ok) return { kind: 'error', message: r.error };
    const pass = ctx.loopPass;
    const writes = pass > 0 ? collectPass(ctx, parent, parentParams.outputs) : [];
    if (pass >= r.items.length) return { kind: 'done', outputs: {}, writes, loopEnd: true };
    const item = r.items[pass];
    return { kind: 'done', outputs: { item, result: item, index: pass }, writes, inputs: { index: pass } };
  },
};
