/**
 * An ingestion pipeline canvas (RAGFlow's `canvas_type: "Ingestion Pipeline"`, components from
 * `rag/flow/`) once compiled: its steps in the order data flows, `File` first. Pure types, shared
 * by the compiler (src/core/pipeline/compile.ts), the steps (src/io/knowledge/pipeline) and the
 * `ingestPipeline` workflow.
 */
import type { PathSegment } from '../dsl/jsonPath';

/** RAGFlow's pipeline components (legacy `Splitter` / `HierarchicalMerger` are normalized to the chunkers). */
export type PipelineComponentName =
  | 'File'
  | 'Parser'
  | 'TokenChunker'
  | 'TitleChunker'
  | 'OneChunker'
  | 'ManualChunker'
  | 'PageChunker'
  | 'QAChunker'
  | 'TableChunker'
  | 'Extractor'
  | 'Tokenizer'
  | 'Compiler';

export interface PipelineStep {
  /** The component id in the DSL (e.g. `Parser:HipSignsRhyme`). */
  id: string;
  component: PipelineComponentName;
  /** Params parsed by the component's schema (RAGFlow's names and defaults). */
  params: Record<string, unknown>;
}

export interface CompiledPipeline {
  steps: PipelineStep[];
}

export interface PipelineProblem {
  /** JSON path into the submitted DSL, e.g. `$.components["Parser:0"].obj.params.setups.pdf.parse_method`. */
  path: string;
  segments: PathSegment[];
  message: string;
}

export type PipelineCompileResult =
  | {
      ok: true;
      pipeline: CompiledPipeline;
      /** Components the path from File never reaches (they never run; RAGFlow saves them too). */
      warnings?: PipelineProblem[];
      /** The normalized bare DSL (legacy names renamed, empty values of the wrong kind read as absent): what to store. */
      dsl?: Record<string, unknown>;
    }
  | { ok: false; problems: PipelineProblem[] };
