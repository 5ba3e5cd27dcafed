/**
 * LoopItem: the start of a Loop's body, run before each pass. The loop ends when
 * `maximum_loop_count` passes are done or the termination conditions hold (checked before every
 * pass, the first included, as RAGFlow does); otherwise the body runs again.
 */
import { z } from 'zod';
import { orderOperator, textOperator } from '../dsl/operators';
import { parseRef } from '../dsl/refs';
import { executionParamsShape } from './common';
import type { LoopParams } from './Loop';
import { parentOf } from './loops';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const LoopItemParams = lazySchema(() => z.looseObject({ ...executionParamsShape }));

export type LoopItemParams = z.infer<typeof LoopItemParams>;

/** RAGFlow's `LoopItem.evaluate_condition`: the operator's meaning depends on the variable's type. */
export function evaluateLoopCondition(v: unknown, operator: string, value: unknown): boolean {
  if (typeof v === 'string') {
    const byText = textOperator(operator, v, String(value ?? ''));
    if (byText !== undefined) return byText;
    switch (operator) {
      case 'is':
        return v === value;
      case 'is not':
        return v !== value;
      case 'empty':
        return v === '';
      case 'not empty':
        return v !== '';
    }
  } else if (typeof v === 'boolean') {
    switch (operator) {
      case 'is':
        return v === value;
      case 'is not':
        return v !== value;
      case 'empty':
        return false;
      case 'not empty':
        return true;
    }
  } else if (typeof v === 'number') {
    const byOrder = orderOperator(operator, v, typeof value === 'number' ? value : Number(value));
    if (byOrder !== undefined) return byOrder;
    switch (operator) {
      case 'empty':
        return false;
      case 'not empty':
        return true;
    }
  } else if (Array.isArray(v)) {
    switch (operator) {
      case 'contains':
        return v.some((x) => JSON.stringify(x) === JSON.stringify(value));
      case 'not contains':
        return !v.some((x) => JSON.stringify(x) === JSON.stringify(value));
      case 'is':
        return JSON.stringify(v) === JSON.stringify(value);
      case 'is not':
        return JSON.stringify(v) !== JSON.stringify(value);
      case 'empty':
        return v.length === 0;
      case 'not empty':
        return v.length > 0;
    }
  } else if (typeof v === 'object' && v !== null) {
    switch (operator) {
      case 'empty':
        return Object.keys(v).length === 0;
      case 'not empty':
        return Object.keys(v).length > 0;
    }
  } else if (v === null || v === undefined) {
    return operator === 'empty';
  }
  throw new Error(`Invalid operator: ${operator}`);
}

/** Whether the loop's termination conditions hold now. */
export function loopShouldEnd(p: LoopParams, ctx: ComponentContext): boolean {
  const results = p.loop_termination_condition.map((c) => {
    if (!c.variable || !c.operator) throw new Error('Loop condition is incomplete.');
    const ref = parseRef(c.variable);
    const v = ref ? ctx.resolve(ref) : undefined;
    const mode = c.input_mode ?? 'constant';
    let value: unknown;
    if (mode === 'variable') {
      const vref = typeof c.value === 'string' ? parseRef(c.value) : null;
      value = vref ? ctx.resolve(vref) : undefined;
    } else if (mode === 'constant') value = c.value ?? '';
    else throw new Error('Invalid input mode.');
    return evaluateLoopCondition(v, c.operator, value);
  });
  // No conditions: only the pass limit or an ExitLoop end the loop.
  if (results.length === 0) return false;
  return p.logical_operator === 'or' ? results.some(Boolean) : results.every(Boolean);
}

export const LoopItem: ComponentDef<LoopItemParams> = {
  name: 'LoopItem',
  params: LoopItemParams,
  role: 'loopItem',
  execution: 'inline',
  outputNames: () => [],
  inputRefs: () => [],
  thoughts: () => 'Next turn...',
  run(_p, ctx) {
    const parent = parentOf(ctx);
    if (!parent || ctx.canvas.typeOf(parent) !== 'Loop') return { kind: 'error', message: `LoopItem ${ctx.id} is not inside a Loop` };
    const lp = ctx.paramsOf(parent) as LoopParams;
    if (ctx.loopPass >= lp.maximum_loop_count) return { kind: 'done', outputs: {}, loopEnd: true };
    try {
      if (loopShouldEnd(lp, ctx)) return { kind: 'done', outputs: {}, loopEnd: true };
    } catch (err) {
      return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
    }
    return { kind: 'done', outputs: {}, inputs: { pass: ctx.loopPass + 1 } };
  },
};
