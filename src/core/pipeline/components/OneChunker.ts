/**
 * OneChunker (RAGFlow's Go `internal/ingestion/component/chunker/one.go`, the `one`, `picture` and
 * `audio` chunk methods): the whole upstream document becomes one chunk. It has no params; the Go
 * templates for pictures and audio name it under a `TokenChunker:…` id.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';

export const OneChunkerParamsSchema = lazySchema(() => z.looseObject({}));

export type OneChunkerParams = z.infer<typeof OneChunkerParamsSchema>;
