/**
 * Answer: RAGFlow v0.x's turn boundary, kept for old canvases. It shows the output of the
 * upstream component that ran last as the turn's message (streamed when that is a model
 * answer) and ends the turn; the conversation's next turn continues from its downstream, which
 * is why `Answer ↔ tool` cycles are legal. After Begin it shows the prologue, as v0.x did.
 */
import { z } from 'zod';
import { executionParamsShape } from './common';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const AnswerParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    post_answers: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(z.string())),
  }),
);

export type AnswerParams = z.infer<typeof AnswerParams>;

/** The upstream component whose output this Answer shows. */
export function answeredComponent(ctx: ComponentContext): string | null {
  const upstream = new Set(ctx.canvas.upstream(ctx.id));
  const before = ctx.path.slice(0, ctx.position);
  for (let i = before.length - 1; i >= 0; i--) {
    const id = before[i]!;
    if (upstream.has(id) || ctx.canvas.downstream(id).includes(ctx.id)) return id;
  }
  return null;
}

function outputName(ctx: ComponentContext, id: string): string {
  return ctx.canvas.typeOf(id) === 'Retrieval' ? 'formalized_content' : 'content';
}

export const Answer: ComponentDef<AnswerParams> = {
  name: 'Answer',
  params: AnswerParams,
  role: 'answer',
  execution: 'inline',
  outputNames: () => ['content'],
  inputRefs: () => [],
  thoughts: () => '',
  run: () => ({ kind: 'done', outputs: {} }),
  messageTemplate(p, ctx) {
    const source = answeredComponent(ctx);
    const suffix = p.post_answers[0] ?? '';
    if (!source) return suffix;
    if (ctx.canvas.roleOf(source) === 'begin') return `${ctx.canvas.prologue()}${suffix}`;
    return `{${source}@${outputName(ctx, source)}}${suffix}`;
  },
};
