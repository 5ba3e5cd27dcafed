/**
 * Loop: a while-loop over its body (the components whose `parent_id` is this one, starting at its
 * LoopItem), with loop variables as its outputs (the body updates them, e.g. with a
 * VariableAssigner on `{Loop:X@var}`), ended by `loop_termination_condition`, by
 * `maximum_loop_count` passes, or by an ExitLoop. RAGFlow's semantics, including the check of the
 * conditions before each pass.
 */
import { z } from 'zod';
import { parseRef } from '../dsl/refs';
import { executionParamsShape, nonNegInt } from './common';
import type { ComponentContext, ComponentDef, ParamRef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const LoopVariableSchema = lazySchema(() =>
  z.looseObject({
    variable: z.string().nullish(),
    input_mode: z.string().nullish(),
    type: z.string().nullish(),
    value: z.unknown().optional(),
  }),
);

const TerminationSchema = lazySchema(() =>
  z.looseObject({
    variable: z.string().nullish(),
    operator: z.string().nullish(),
    input_mode: z.string().nullish(),
    value: z.unknown().optional(),
  }),
);

const LoopParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    loop_variables: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(LoopVariableSchema)),
    loop_termination_condition: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(TerminationSchema)),
    maximum_loop_count: nonNegInt(0),
    logical_operator: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 'and' : v),
      z.enum(['and', 'or'], { message: "logical_operator should be 'and' or 'or'" }),
    ),
  }),
);

export type LoopParams = z.infer<typeof LoopParams>;

const missing = (v: unknown) => v === null || v === undefined || v === '';

/** The initial value of a loop variable; `undefined` when its definition is incomplete. */
function initialValue(item: z.infer<typeof LoopVariableSchema>, ctx: ComponentContext): { value: unknown } | null {
  if (missing(item.variable) || missing(item.input_mode) || missing(item.type)) return null;
  if (item.input_mode === 'variable') {
    if (missing(item.value)) return null;
    const ref = typeof item.value === 'string' ? parseRef(item.value) : null;
    return { value: ref ? ctx.resolve(ref) : undefined };
  }
  if (item.input_mode === 'constant') return item.value === null || item.value === undefined ? null : { value: item.value };
  return null;
}

function paramRefs(p: LoopParams): ParamRef[] {
  const out: ParamRef[] = [];
  p.loop_variables.forEach((v, i) => {
    const ref = v.input_mode === 'variable' && typeof v.value === 'string' ? parseRef(v.value) : null;
    if (ref) out.push({ path: ['loop_variables', i, 'value'], ref });
  });
  p.loop_termination_condition.forEach((c, i) => {
    const ref = typeof c.variable === 'string' ? parseRef(c.variable) : null;
    if (ref) out.push({ path: ['loop_termination_condition', i, 'variable'], ref });
    const vref = c.input_mode === 'variable' && typeof c.value === 'string' ? parseRef(c.value) : null;
    if (vref) out.push({ path: ['loop_termination_condition', i, 'value'], ref: vref });
  });
  return out;
}

export const Loop: ComponentDef<LoopParams> = {
  name: 'Loop',
  params: LoopParams,
  role: 'container',
  execution: 'inline',
  outputNames: (p) => p.loop_variables.map((v) => v.variable ?? '').filter(Boolean),
  inputRefs: () => [],
  paramRefs,
  thoughts: () => 'Loop from canvas.',
  run(p, ctx) {
    const outputs: Record<string, unknown> = {};
    for (const item of p.loop_variables) {
      const init = initialValue(item, ctx);
      if (!init) return { kind: 'error', message: 'Loop Variable is not complete.' };
      outputs[item.variable!] = init.value;
    }
    return { kind: 'done', outputs };
  },
};
