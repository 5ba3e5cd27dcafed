/**
 * Switch: routes the run by conditions on variables, RAGFlow's semantics: conditions are tried
 * in order; `and` needs every item true, `or` any; the first matching condition's `to` wins,
 * else `end_cpn_ids`. A number compared with a value converts the value to a float first;
 * ordering operators try float conversion and fall back to comparing strings.
 */
import { z } from 'zod';
import { parseRef } from '../dsl/refs';
import { bareRef, executionParamsShape, idList, pyFloat, pyTruthy } from './common';
import type { ComponentDef, ParamRef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

export const SWITCH_OPERATORS = ['contains', 'not contains', 'start with', 'end with', 'empty', 'not empty', '=', '≠', '>', '<', '≥', '≤'] as const;
export type SwitchOperator = (typeof SWITCH_OPERATORS)[number];

const ItemSchema = lazySchema(() =>
  z.looseObject({
    cpn_id: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
    operator: z.enum(SWITCH_OPERATORS, { message: `operator must be one of: ${SWITCH_OPERATORS.join(', ')}` }),
    value: z.unknown().optional(),
  }),
);

const ConditionSchema = lazySchema(() =>
  z.looseObject({
    logical_operator: z.preprocess((v) => (v === null || v === undefined || v === '' ? 'and' : v), z.string()),
    items: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(ItemSchema)),
    to: idList.refine((ids) => ids.length > 0, "'to' must not be empty"),
  }),
);

const SwitchParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    conditions: z.array(ConditionSchema).min(1, 'at least one condition is required'),
    end_cpn_ids: idList.refine((ids) => ids.length > 0, 'the ELSE destination must not be empty'),
  }),
);

export type SwitchParams = z.infer<typeof SwitchParams>;

function pyStr(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function order(input: unknown, value: unknown, cmp: (a: number, b: number) => boolean, scmp: (a: string, b: string) => boolean): boolean {
  try {
    return cmp(pyFloat(input), pyFloat(value));
  } catch {
    if (typeof input === 'string' && typeof value === 'string') return scmp(input, value);
    throw new Error(`cannot compare ${JSON.stringify(input)} with ${JSON.stringify(value)}`);
  }
}

/** Evaluates one operator exactly as RAGFlow's `Switch.process_operator`. */
export function evaluateOperator(input: unknown, operator: SwitchOperator, value: unknown): boolean {
  switch (operator) {
    case 'contains':
      return pyStr(input).toLowerCase().includes(pyStr(value).toLowerCase());
    case 'not contains':
      return !pyStr(input).toLowerCase().includes(pyStr(value).toLowerCase());
    case 'start with':
      return pyStr(input).toLowerCase().startsWith(pyStr(value).toLowerCase());
    case 'end with':
      return pyStr(input).toLowerCase().endsWith(pyStr(value).toLowerCase());
    case 'empty':
      return !pyTruthy(input);
    case 'not empty':
      return pyTruthy(input);
    case '=':
      return input === value;
    case '≠':
      return input !== value;
    case '>':
      return order(
        input,
        value,
        (a, b) => a > b,
        (a, b) => a > b,
      );
    case '<':
      return order(
        input,
        value,
        (a, b) => a < b,
        (a, b) => a < b,
      );
    case '≥':
      return order(
        input,
        value,
        (a, b) => a >= b,
        (a, b) => a >= b,
      );
    case '≤':
      return order(
        input,
        value,
        (a, b) => a <= b,
        (a, b) => a <= b,
      );
  }
}

export const Switch: ComponentDef<SwitchParams> = {
  name: 'Switch',
  params: SwitchParams,
  role: 'router',
  execution: 'inline',
  outputNames: () => ['next', '_next'],
  inputRefs: () => [],
  paramRefs: (p) => p.conditions.flatMap((c, ci) => c.items.flatMap((item, ii): ParamRef[] => bareRef(['conditions', ci, 'items', ii, 'cpn_id'], item.cpn_id))),
  targets: (p) => [
    ...p.conditions.flatMap((c, ci) => c.to.map((target, i) => ({ path: ['conditions', ci, 'to', i], target }))),
    ...p.end_cpn_ids.map((target, i) => ({ path: ['end_cpn_ids', i], target })),
  ],
  thoughts: () => 'I’m weighing a few options and will pick the next step shortly.',
  run(p, ctx) {
    const inputs: Record<string, unknown> = {};
    const pick = (to: string[]) => {
      const next = [...to];
      return { kind: 'done' as const, outputs: { next: next.map((id) => ctx.canvas.displayName(id)), _next: next }, next, inputs };
    };
    try {
      for (const cond of p.conditions) {
        const res: boolean[] = [];
        for (const item of cond.items) {
          if (!item.cpn_id) continue;
          const ref = parseRef(item.cpn_id);
          if (!ref) return { kind: 'error', message: `'${item.cpn_id}' is not a variable reference` };
          const input = ctx.resolve(ref);
          inputs[item.cpn_id] = input;
          let value: unknown = item.value ?? '';
          if (typeof input === 'number') value = pyFloat(value);
          res.push(evaluateOperator(input, item.operator, value));
          if (cond.logical_operator !== 'and' && res.some(Boolean)) return pick(cond.to);
        }
        if (res.length > 0 && res.every(Boolean)) return pick(cond.to);
      }
      return pick(p.end_cpn_ids);
    } catch (err) {
      return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
    }
  },
};
