/**
 * TableChunker (RAGFlow's Go `internal/ingestion/component/chunker/table.go`, the `table` chunk
 * method: "every row in table will be treated as a chunk"): one chunk per upstream record; a
 * flat text, Markdown or HTML payload is one chunk. It has no params.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';

export const TableChunkerParamsSchema = lazySchema(() => z.looseObject({}));

export type TableChunkerParams = z.infer<typeof TableChunkerParamsSchema>;
