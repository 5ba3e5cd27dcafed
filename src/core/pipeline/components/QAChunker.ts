/**
 * QAChunker (RAGFlow's Go `internal/ingestion/component/chunker/qa.go`, the `qa` chunk method):
 * question/answer pairs from the parsed content, one chunk each. `lang` picks the prefixes:
 * `English` gives `Question: ` / `Answer: `, anything else RAGFlow's Chinese `问题：` / `回答：`.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';

export const QAChunkerParamsSchema = lazySchema(() =>
  z.looseObject({
    lang: z.preprocess((v) => (typeof v === 'string' ? v : ''), z.string()),
  }),
);

export type QAChunkerParams = z.infer<typeof QAChunkerParamsSchema>;
