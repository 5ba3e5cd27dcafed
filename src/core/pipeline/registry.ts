/**
 * The pipeline components (RAGFlow's `rag/flow/`) and their params schemas, one file each under
 * ./components. Legacy names (`Splitter`, `HierarchicalMerger`) are renamed before lookup by the
 * DSL normalization (src/core/dsl/normalize.ts, RAGFlow's `dsl_migration`). The Go engine's
 * chunkers (`OneChunker`, `ManualChunker`, `PageChunker`, `QAChunker`, `TableChunker`) sit beside
 * the Python engine's two.
 */
import type { z } from 'zod';
import type { PipelineComponentName } from './types';
import { CompilerParamsSchema, type CompilerParams } from './components/Compiler';
import { ExtractorParamsSchema, type ExtractorParams } from './components/Extractor';
import { FileParamsSchema, type FileParams } from './components/File';
import { ParserParamsSchema, type ParserParams } from './components/Parser';
import { TitleChunkerParamsSchema, type TitleChunkerParams } from './components/TitleChunker';
import { TokenChunkerParamsSchema, type TokenChunkerParams } from './components/TokenChunker';
import { TokenizerParamsSchema, type TokenizerParams } from './components/Tokenizer';
import { ManualChunkerParamsSchema, type ManualChunkerParams } from './components/ManualChunker';
import { OneChunkerParamsSchema, type OneChunkerParams } from './components/OneChunker';
import { PageChunkerParamsSchema, type PageChunkerParams } from './components/PageChunker';
import { QAChunkerParamsSchema, type QAChunkerParams } from './components/QAChunker';
import { TableChunkerParamsSchema, type TableChunkerParams } from './components/TableChunker';

/** Each component's parsed params. */
export interface PipelineParamsOf {
  File: FileParams;
  Parser: ParserParams;
  TokenChunker: TokenChunkerParams;
  TitleChunker: TitleChunkerParams;
  OneChunker: OneChunkerParams;
  ManualChunker: ManualChunkerParams;
  PageChunker: PageChunkerParams;
  QAChunker: QAChunkerParams;
  TableChunker: TableChunkerParams;
  Extractor: ExtractorParams;
  Tokenizer: TokenizerParams;
  Compiler: CompilerParams;
}

type Registry = { readonly [K in PipelineComponentName]: z.ZodType<PipelineParamsOf[K], unknown> };

export const PIPELINE_COMPONENTS: Registry = {
  File: FileParamsSchema,
  Parser: ParserParamsSchema,
  TokenChunker: TokenChunkerParamsSchema,
  TitleChunker: TitleChunkerParamsSchema,
  OneChunker: OneChunkerParamsSchema,
  ManualChunker: ManualChunkerParamsSchema,
  PageChunker: PageChunkerParamsSchema,
  QAChunker: QAChunkerParamsSchema,
  TableChunker: TableChunkerParamsSchema,
  Extractor: ExtractorParamsSchema,
  Tokenizer: TokenizerParamsSchema,
  Compiler: CompilerParamsSchema,
};

export const PIPELINE_COMPONENT_NAMES = Object.keys(PIPELINE_COMPONENTS) as PipelineComponentName[];

export function isPipelineComponent(name: string): name is PipelineComponentName {
  return Object.prototype.hasOwnProperty.call(PIPELINE_COMPONENTS, name);
}

/** A step's params with their component's type. */
export function paramsOf<K extends PipelineComponentName>(
  step: { component: PipelineComponentName; params: Record<string, unknown> },
  name: K,
): PipelineParamsOf[K] {
  if (step.component !== name) throw new Error(`expected a ${name} step, got ${step.component}`);
  return step.params as unknown as PipelineParamsOf[K];
}
