/** ExitLoop: leaves the enclosing Loop; the run goes on with the Loop's downstream. */
import { z } from 'zod';
import { executionParamsShape } from './common';
import type { ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const ExitLoopParams = lazySchema(() => z.looseObject({ ...executionParamsShape }));

export type ExitLoopParams = z.infer<typeof ExitLoopParams>;

export const ExitLoop: ComponentDef<ExitLoopParams> = {
  name: 'ExitLoop',
  params: ExitLoopParams,
  role: 'exitLoop',
  execution: 'inline',
  outputNames: () => [],
  inputRefs: () => [],
  thoughts: () => '',
  run: () => ({ kind: 'done', outputs: {} }),
};
