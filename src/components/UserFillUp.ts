/** UserFillUp: pauses the run until a person fills in a form (RAGFlow's "Await response"). */
import { z } from 'zod';
import { FormFieldSchema } from './Begin';
import { bool, executionParamsShape, notRunnableYet, str, templateRefs } from './common';
import type { ComponentDef } from './types';

const UserFillUpParams = z.looseObject({
  ...executionParamsShape,
  enable_tips: bool(true),
  tips: str('Please fill up the form'),
  layout_recognize: str(''),
  inputs: z.preprocess((v) => (v === null || v === undefined || Array.isArray(v) ? {} : v), z.record(z.string(), FormFieldSchema)),
});

export type UserFillUpParams = z.infer<typeof UserFillUpParams>;

export const UserFillUp: ComponentDef<UserFillUpParams> = {
  name: 'UserFillUp',
  params: UserFillUpParams,
  role: 'plain',
  execution: 'inline',
  outputNames: (p) => ['tips', ...Object.keys(p.inputs)],
  inputRefs: (p) => templateRefs(p.tips),
  thoughts: () => 'Waiting for your input...',
  run: () => notRunnableYet('UserFillUp'),
};
