/**
 * File (RAGFlow's `rag/flow/file.py`): the pipeline's entry. It has no params; it hands the
 * document (its name and file reference) to the next step.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';

export const FileParamsSchema = lazySchema(() => z.looseObject({}));

export type FileParams = z.infer<typeof FileParamsSchema>;
