/**
 * PageChunker (RAGFlow's Go `internal/ingestion/component/chunker/page.go`, the `presentation`
 * chunk method: "every page will be treated as a chunk"): one chunk per upstream slide or page
 * record. It has no params.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';

export const PageChunkerParamsSchema = lazySchema(() => z.looseObject({}));

export type PageChunkerParams = z.infer<typeof PageChunkerParamsSchema>;
