/**
 * TokenChunker (RAGFlow's `rag/flow/chunker/token_chunker.py`, formerly `Splitter`): params as
 * `TokenChunkerParam` has them, with its defaults and its `check()` coercions (a legacy
 * `delimiter_mode: "token_size"` reads as `"delimiter"`, one delimiter string as a list, empty
 * delimiters dropped).
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';
import { nonNegInt, positiveInt } from '../../components/common';

function numeric(v: unknown): unknown {
  return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
}

/** RAGFlow's delimiter lists: one string or a list, non-strings and empty strings dropped. */
const delimiterList = (def: string[]) =>
  z.preprocess((v) => {
    if (v === undefined) return def;
    if (v === null) return [];
    if (typeof v === 'string') return v ? [v] : [];
    if (Array.isArray(v)) return v.filter((d): d is string => typeof d === 'string' && d !== '');
    return v;
  }, z.array(z.string()));

export const TokenChunkerParamsSchema = lazySchema(() =>
  z.looseObject({
    delimiter_mode: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? 'delimiter' : v === 'token_size' ? 'delimiter' : v),
      z.enum(['delimiter', 'one'], { error: 'Delimiter mode abnormal: must be "delimiter" or "one"' }),
    ),
    chunk_token_size: positiveInt(512),
    delimiters: delimiterList(['\n']),
    /** A fraction in [0, 1] as the editor writes it (RAGFlow's `check_decimal_float`). */
    overlapped_percent: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 0 : numeric(v)),
      z.number().min(0, 'Overlapped percentage must be in [0, 1]').max(1, 'Overlapped percentage must be in [0, 1]'),
    ),
    children_delimiters: delimiterList([]),
    table_context_size: nonNegInt(0),
    image_context_size: nonNegInt(0),
  }),
);

export type TokenChunkerParams = z.infer<typeof TokenChunkerParamsSchema>;
