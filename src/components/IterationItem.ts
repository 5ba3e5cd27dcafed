/** IterationItem: the start of an Iteration's body; yields `item`, `index` and collects `result`. */
import { z } from 'zod';
import { executionParamsShape, notRunnableYet } from './common';
import type { ComponentDef } from './types';

const IterationItemParams = z.looseObject({ ...executionParamsShape });

export type IterationItemParams = z.infer<typeof IterationItemParams>;

export const IterationItem: ComponentDef<IterationItemParams> = {
  name: 'IterationItem',
  params: IterationItemParams,
  role: 'plain',
  execution: 'inline',
  outputNames: () => ['item', 'index', 'result'],
  inputRefs: () => [],
  thoughts: () => 'Next item...',
  run: () => notRunnableYet('IterationItem'),
};
