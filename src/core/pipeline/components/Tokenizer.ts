/**
 * Tokenizer (RAGFlow's `rag/flow/tokenizer/tokenizer.py`): which indexes a chunk gets
 * (`search_method`: `full_text`, `embedding`), how much the file name weighs in the vector
 * (`filename_embd_weight`) and which chunk fields are embedded (`fields`).
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';

export const TokenizerParamsSchema = lazySchema(() =>
  z.looseObject({
    search_method: z.preprocess(
      (v) => {
        if (v === undefined || v === null) return ['full_text', 'embedding'];
        const list = typeof v === 'string' ? [v] : v;
        return Array.isArray(list) ? list.map((x) => (typeof x === 'string' ? x.toLowerCase() : x)) : list;
      },
      z.array(z.enum(['full_text', 'embedding'], { error: 'Chunk method abnormal: must be "full_text" or "embedding"' })),
    ),
    filename_embd_weight: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 0.1 : typeof v === 'string' && Number.isFinite(Number(v)) ? Number(v) : v),
      z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1'),
    ),
    fields: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? ['text'] : typeof v === 'string' ? [v] : v),
      z.array(z.string()).min(1, 'name at least one chunk field to embed'),
    ),
  }),
);

export type TokenizerParams = z.infer<typeof TokenizerParamsSchema>;
