/**
 * UserFillUp ("Await response"): the run pauses until a person fills in the form. The engine
 * pauses before it runs (RAGFlow's look-ahead after a batch) and emits `user_inputs`; when the
 * run resumes, the component runs with the submitted values as its outputs. While nobody answers
 * it may remind and escalate (./formFollowUp.ts): escalated, it goes to `escalate_goto`.
 */
import { z } from 'zod';
import { FormFieldSchema } from './Begin';
import { bool, executionParamsShape, str, templateRefs } from './common';
import type { ComponentContext, ComponentDef } from './definition';
import { checkFormFollowUp, followUpOf, formFollowUpShape } from './formFollowUp';
import { lazySchema } from '../dsl/lazySchema';

const UserFillUpParams = lazySchema(() =>
  z
    .looseObject({
      ...executionParamsShape,
      enable_tips: bool(true),
      tips: str('Please fill up the form'),
      layout_recognize: str(''),
      inputs: z.preprocess((v) => (v === null || v === undefined || Array.isArray(v) ? {} : v), z.record(z.string(), FormFieldSchema)),
      ...formFollowUpShape,
    })
    .superRefine(checkFormFollowUp),
);

export type UserFillUpParams = z.infer<typeof UserFillUpParams>;

/** The tips shown with the form, references rendered (lists joined by commas, as RAGFlow does). */
export function renderTips(p: UserFillUpParams, ctx: ComponentContext): string {
  if (!p.enable_tips) return '';
  return ctx.render(p.tips);
}

export const UserFillUp: ComponentDef<UserFillUpParams> = {
  name: 'UserFillUp',
  params: UserFillUpParams,
  role: 'form',
  execution: 'inline',
  outputNames: (p) => ['tips', ...Object.keys(p.inputs), ...(followUpOf(p).escalate_after !== null ? ['escalated'] : [])],
  inputRefs: (p) => templateRefs(p.tips),
  targets: (p) => followUpOf(p).escalate_goto.map((target, i) => ({ path: ['escalate_goto', i], target })),
  thoughts: () => 'Waiting for your input...',
  form: (p, ctx) => ({ fields: p.inputs, tips: renderTips(p, ctx) }),
  run(p, ctx) {
    if (ctx.form.escalated) {
      const waited = ctx.form.waitedS !== null ? ` within ${ctx.form.waitedS} s` : '';
      // A form merged into the pause without an escalation of its own fails, as a timeout does.
      const goto = followUpOf(p).escalate_goto;
      if (goto.length === 0) return { kind: 'error', message: `No input arrived${waited}: the wait for the form was escalated` };
      return { kind: 'done', outputs: { ...(p.enable_tips ? { tips: renderTips(p, ctx) } : {}), escalated: true }, next: [...goto] };
    }
    if (ctx.form.expired) {
      return { kind: 'error', message: `No input arrived${ctx.form.waitedS !== null ? ` within ${ctx.form.waitedS} s` : ''}: the wait for the form timed out` };
    }
    const submitted = ctx.form.values ?? {};
    const outputs: Record<string, unknown> = {};
    if (p.enable_tips) outputs.tips = renderTips(p, ctx);
    for (const key of Object.keys(p.inputs)) if (key in submitted) outputs[key] = submitted[key];
    return {
      kind: 'done',
      outputs,
      inputs: Object.fromEntries(
        Object.keys(p.inputs)
          .filter((k) => k in submitted)
          .map((k) => [k, submitted[k]]),
      ),
    };
  },
};
