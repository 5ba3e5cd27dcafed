/**
 * Generate: RAGFlow v0.x's model call, kept for old canvases. It is an LLM call whose system
 * prompt is `prompt`, with v0.x's template variables: `{input}` is the output of the upstream
 * component that ran last, `{component_id}` is that component's output, and `parameters` name
 * further `{key}`s. Generation settings present in the params are sent as they are (v0.x had
 * no "enabled" switches).
 */
import { z } from 'zod';
import { planModelCall, readModelAnswer } from './LLM';
import { buildPrompt, llmInputRefs, llmParamsShape, llmThoughts, structuredSchema, type LlmParams } from './llmPrompt';
import { stringifyValue } from '../dsl/refs';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const GenerateParams = lazySchema(() =>
  z.preprocess(
    (raw) => {
      if (typeof raw !== 'object' || raw === null) return raw;
      const r = raw as Record<string, unknown>;
      return {
        ...r,
        sys_prompt: r.sys_prompt ?? r.prompt ?? '',
        maxTokensEnabled: r.maxTokensEnabled ?? 'max_tokens' in r,
        temperatureEnabled: r.temperatureEnabled ?? 'temperature' in r,
        topPEnabled: r.topPEnabled ?? 'top_p' in r,
        presencePenaltyEnabled: r.presencePenaltyEnabled ?? 'presence_penalty' in r,
        frequencyPenaltyEnabled: r.frequencyPenaltyEnabled ?? 'frequency_penalty' in r,
      };
    },
    z.looseObject({
      ...llmParamsShape,
      prompt: z.string().optional(),
      parameters: z.preprocess(
        (v) => (v === null || v === undefined ? [] : v),
        z.array(z.looseObject({ key: z.string(), component_id: z.string().optional() })),
      ),
    }),
  ),
);

export type GenerateParams = z.infer<typeof GenerateParams>;

/** The main output of a component as v0.x templates saw it. */
function mainOutput(ctx: ComponentContext, id: string): string {
  const out = ctx.outputsOf(id);
  if (ctx.canvas.typeOf(id) === 'Retrieval' && out.formalized_content !== undefined) return stringifyValue(out.formalized_content);
  if (ctx.canvas.typeOf(id) === 'Begin') return stringifyValue(out.content ?? ctx.globals['sys.query']);
  return stringifyValue(out.content ?? out.result ?? '');
}

/** Values of v0.x's `{input}`, `{component_id}` and `parameters` variables. */
function legacyVars(p: GenerateParams, ctx: ComponentContext): Record<string, string> {
  const vars: Record<string, string> = {};
  const upstream = new Set(ctx.canvas.upstream(ctx.id));
  const before = ctx.path.slice(0, ctx.position);
  const last = [...before].reverse().find((id) => upstream.has(id));
  vars.input = last ? mainOutput(ctx, last) : '';
  for (const m of p.sys_prompt.matchAll(/\{([A-Za-z0-9_:-]+)\}/g)) {
    const id = m[1]!;
    if (id !== 'input' && ctx.canvas.has(id)) vars[id] = mainOutput(ctx, id);
  }
  for (const param of p.parameters) {
    if (param.component_id && ctx.canvas.has(param.component_id)) vars[param.key] = mainOutput(ctx, param.component_id);
  }
  return vars;
}

export const Generate: ComponentDef<GenerateParams> = {
  name: 'Generate',
  params: GenerateParams as unknown as z.ZodType<GenerateParams>,
  legacyParams: { prompt: 'sys_prompt' },
  role: 'plain',
  execution: 'activity',
  streamsContent: (p) => structuredSchema(p.outputs) === null,
  outputNames: () => ['content'],
  inputRefs: (p) => llmInputRefs(p),
  thoughts: (p, ctx) => llmThoughts(buildPrompt(p, ctx, legacyVars(p, ctx))),
  run: (p, ctx) => planModelCall(p as LlmParams, ctx, legacyVars(p, ctx)),
  onResult: (p, _ctx, result, memo) => readModelAnswer(p, result, memo),
};
