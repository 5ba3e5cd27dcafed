/**
 * Compiler (RAGFlow's `rag/flow/compiler/compiler.py`): knowledge compilation driven by a saved
 * compilation-template group (`compilation_template_group_id`, legacy plural
 * `compilation_template_group_ids`) with the component's LLM. RAGFlow refuses an empty group; here
 * an empty group loads (the shipped template has one) and runs as RAGFlow does when a group
 * resolves to no active template: the normalized chunks pass through.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';
import { llmParamsShape } from '../../components/llmPrompt';

export const CompilerParamsSchema = lazySchema(() =>
  z.looseObject({
    ...llmParamsShape,
    // The Compiler reads its input from upstream, not from prompts.
    prompts: z.preprocess((v) => (v === undefined || v === null || v === '' ? [] : v), z.array(z.unknown())),
    compilation_template_group_id: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
    compilation_template_group_ids: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? [] : typeof v === 'string' ? [v] : v),
      z.array(z.string()),
    ),
    plan: z.preprocess((v) => (v === null || v === undefined ? false : v), z.boolean()),
  }),
);

export type CompilerParams = z.infer<typeof CompilerParamsSchema>;

/** The template groups named (the singular id first, as RAGFlow's `check()` prefers it). */
export function compilerGroups(p: CompilerParams): string[] {
  return p.compilation_template_group_id ? [p.compilation_template_group_id] : p.compilation_template_group_ids;
}
