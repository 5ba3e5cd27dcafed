/**
 * ManualChunker (RAGFlow's Go `internal/ingestion/component/chunker/manual.go`, the `manual`
 * chunk method): TitleChunker's params with `method` pinned to `group` (a `method` given is
 * ignored, as RAGFlow ignores it) and no token cap (RAGFlow exempts it, #18455). Before grouping,
 * records with PDF coordinates are re-sorted into physical reading order (page, top, left).
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';
import { TitleChunkerParamsSchema } from './TitleChunker';

export const ManualChunkerParamsSchema = lazySchema(() =>
  z.preprocess(
    (v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...(v as Record<string, unknown>), method: 'group', chunk_token_cap: 0 } : v),
    TitleChunkerParamsSchema,
  ),
);

export type ManualChunkerParams = z.infer<typeof ManualChunkerParamsSchema>;
