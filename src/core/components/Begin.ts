/**
 * Begin: the entry of every canvas. Its outputs are the run's inputs (RAGFlow's Begin): the
 * `inputs` sent with the request, or, when none were sent and the form has exactly one field,
 * the query itself.
 */
import { z } from 'zod';
import { bool, executionParamsShape, str } from './common';
import { beginSubmission } from './beginInputs';
import type { ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

/** One field of an input form (Begin inputs, UserFillUp inputs). */
export const FormFieldSchema = lazySchema(() =>
  z.looseObject({
    key: z.string().optional(),
    name: z.string().optional(),
    type: z.string().default('line'),
    optional: bool(false),
    options: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(z.unknown())),
    value: z.unknown().optional(),
  }),
);

export type FormField = z.infer<typeof FormFieldSchema>;

const BeginParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    mode: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? 'conversational' : typeof v === 'string' && v.toLowerCase() === 'webhook' ? 'Webhook' : v),
      z.enum(['conversational', 'task', 'Webhook'], { message: "mode should be 'conversational', 'task' or 'Webhook'" }),
    ),
    prologue: str("Hi! I'm your smart assistant. What can I do for you?"),
    enablePrologue: bool(true),
    inputs: z.preprocess((v) => (v === null || v === undefined || Array.isArray(v) ? {} : v), z.record(z.string(), FormFieldSchema)),
  }),
);

export type BeginParams = z.infer<typeof BeginParams>;

/** A submitted form value: `{value: ...}` objects (RAGFlow's form shape) or the bare value. */
export function formValue(submitted: unknown, field?: FormField): unknown {
  if (typeof submitted === 'object' && submitted !== null && !Array.isArray(submitted) && 'value' in submitted) {
    const raw = (submitted as { value?: unknown }).value;
    const type = (submitted as { type?: unknown }).type ?? field?.type;
    if (type === 'object' && typeof raw === 'string' && raw.trim()) {
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    }
    return raw;
  }
  return submitted;
}

export const Begin: ComponentDef<BeginParams> = {
  name: 'Begin',
  params: BeginParams,
  role: 'begin',
  execution: 'inline',
  outputNames: (p) => Object.keys(p.inputs),
  inputRefs: () => [],
  thoughts: () => '',
  run(p, ctx) {
    if (ctx.webhook) {
      // Webhook mode: the request's parts are Begin's outputs (`{begin@body.order_id}`).
      const { input, ...parts } = ctx.webhook;
      return { kind: 'done', outputs: { ...parts }, inputs: { request: input ?? null } };
    }
    const submitted = beginSubmission(p.inputs, ctx.runInputs, ctx.globals['sys.query']);
    const outputs: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(submitted)) outputs[key] = formValue(v, p.inputs[key]);
    return { kind: 'done', outputs, inputs: { ...outputs } };
  },
};
