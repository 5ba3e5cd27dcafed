/**
 * VariableAggregator: for each group, the first of its variables that has a (truthy) value
 * becomes the group's output — typically joining the branches of a Categorize or Switch.
 */
import { z } from 'zod';
import { parseRef } from '../dsl/refs';
import { bareRef, executionParamsShape, pyTruthy } from './common';
import type { ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const SelectorSchema = lazySchema(() => z.preprocess((v) => (typeof v === 'string' ? { value: v } : v), z.looseObject({ value: z.string() })));

const GroupSchema = lazySchema(() =>
  z.looseObject({
    group_name: z.string().min(1, 'group_name must not be empty'),
    type: z.string().optional(),
    variables: z.array(SelectorSchema).min(1, 'a group needs at least one variable'),
  }),
);

const VariableAggregatorParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    groups: z.array(GroupSchema).min(1, 'at least one group is required'),
  }),
);

export type VariableAggregatorParams = z.infer<typeof VariableAggregatorParams>;

export const VariableAggregator: ComponentDef<VariableAggregatorParams> = {
  name: 'VariableAggregator',
  params: VariableAggregatorParams,
  role: 'plain',
  execution: 'inline',
  outputNames: (p) => p.groups.map((g) => g.group_name),
  // RAGFlow reads the variables directly without a dependency check: branches not taken are fine.
  inputRefs: () => [],
  paramRefs: (p) => p.groups.flatMap((g, gi) => g.variables.flatMap((v, vi) => bareRef(['groups', gi, 'variables', vi, 'value'], v.value))),
  thoughts: () => 'Aggregating variables from canvas and grouping as configured.',
  run(p, ctx) {
    const outputs: Record<string, unknown> = {};
    const inputs: Record<string, unknown> = {};
    for (const group of p.groups) {
      inputs[`${group.group_name}.variables`] = group.variables.map((v) => v.value);
      for (const selector of group.variables) {
        const ref = parseRef(selector.value);
        if (!ref) return { kind: 'error', message: `'${selector.value}' in group '${group.group_name}' is not a variable reference` };
        const value = ctx.resolve(ref);
        if (pyTruthy(value)) {
          outputs[group.group_name] = value;
          break;
        }
      }
    }
    return { kind: 'done', outputs, inputs };
  },
};
