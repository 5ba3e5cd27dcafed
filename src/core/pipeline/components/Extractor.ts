/**
 * Extractor (RAGFlow's `rag/flow/extractor/extractor.py`): RAGFlow's LLM params (`llm_id`,
 * `sys_prompt`, `prompts`, generation settings) plus `field_name`, the chunk field the answer is
 * written to. An empty `llm_id` is the tenant's default chat model.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';
import { llmParamsShape } from '../../components/llmPrompt';

export const ExtractorParamsSchema = lazySchema(() =>
  z
    .looseObject({
      ...llmParamsShape,
      field_name: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string().trim().min(1, 'Result Destination (field_name) must not be empty')),
    })
    .superRefine((p, ctx) => {
      if (p.field_name === 'toc')
        ctx.addIssue({
          code: 'custom',
          path: ['field_name'],
          message: 'field_name "toc" (a generated table of contents) is not supported here; choose another field',
        });
    }),
);

export type ExtractorParams = z.infer<typeof ExtractorParamsSchema>;
