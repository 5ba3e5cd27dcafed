/** Iteration: for-each over a list, the body being the components whose `parent_id` is this one. */
import { z } from 'zod';
import { bareRef, executionParamsShape, notRunnableYet, str } from './common';
import type { ComponentDef } from './types';

const IterationParams = z.looseObject({
  ...executionParamsShape,
  items_ref: str(''),
  variable: z.unknown().optional(),
});

export type IterationParams = z.infer<typeof IterationParams>;

export const Iteration: ComponentDef<IterationParams> = {
  name: 'Iteration',
  params: IterationParams,
  role: 'plain',
  execution: 'inline',
  outputNames: () => [],
  inputRefs: () => [],
  paramRefs: (p) => bareRef(['items_ref'], p.items_ref),
  thoughts: () => 'Need to process the items one by one...',
  run: () => notRunnableYet('Iteration'),
};
