/**
 * The seam between an ingestion pipeline's steps (what each RAGFlow `rag/flow` component does,
 * src/io/knowledge/pipeline/*) and whoever carries them (the `ingestPipeline` workflow's
 * activities, the in-process runner of unit tests and the benchmark baseline).
 *
 * A step reads the payload its upstream produced and returns the next one, as RAGFlow's
 * `*FromUpstream` models describe it. Payloads can be large (a parsed book, 10,000 chunks): the
 * workflow never holds them, activities pass them by reference (blobs).
 */
import type { PipelineStep } from '../../../core/pipeline/types';

export type PipelineOutputFormat = 'json' | 'markdown' | 'text' | 'html' | 'chunks';

/** One chunk as RAGFlow's chunkers write it: `text`, plus fields later steps add (summary, keywords, questions, metadata, vectors…). */
export interface PipelineChunk {
  text: string;
  [field: string]: unknown;
}

/** The file a pipeline runs over, as the `File` component hands it on. */
export interface PipelineFile {
  /** The document id (its bytes are read through `PipelineServices.readFile`). */
  id: string;
  name: string;
  size: number;
}

/** What flows from one step to the next (RAGFlow's `*FromUpstream`). */
export interface PipelinePayload {
  name: string;
  file?: PipelineFile;
  output_format?: PipelineOutputFormat;
  json?: Array<Record<string, unknown>>;
  markdown?: string;
  text?: string;
  html?: string;
  chunks?: PipelineChunk[];
  /** Document metadata a sectioned Extractor sets over what was extracted (RAGFlow's built-in `file_name`, `update_time`). */
  built_in_metadata?: Record<string, unknown>;
  /** What the Tokenizer's embedding consumed (RAGFlow's `embedding_token_consumption`; characters here). */
  embedding_token_consumption?: number;
}

/** One model call of a step (Extractor). */
export interface PipelineChatRequest {
  llmId: string;
  system: string;
  /** The last user message (what `messages` ends with when given). */
  user: string;
  temperature?: number;
  maxTokens?: number;
  /** The whole conversation after the system prompt, when the component's prompts hold more than one message. */
  messages?: Array<{ role: 'user' | 'assistant'; content: string }>;
  /** RAGFlow's other generation settings, sent only when the component enables them. */
  topP?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

/** One image for the vision model (Parser on pictures). */
export interface PipelineImageRequest {
  /** The setup's `llm_id`; "" for VISION_MODEL. */
  llmId: string;
  /** What the model is asked (the setup's `system_prompt`, else RAGFlow's description prompt). */
  prompt: string;
  image: Uint8Array;
  /** e.g. `image/png`. */
  mime: string;
}

/** The I/O a step may do; the carrier builds it (activities: from the worker's deps, honouring the cancellation signal). */
export interface PipelineServices {
  tenantId: string;
  readFile(fileId: string): Promise<Uint8Array>;
  /** One chat completion (Extractor); `llmId` is the component's `llm_id`. */
  chat(request: PipelineChatRequest, signal: AbortSignal): Promise<string>;
  /** A tag file (Extractor `tags.tag_file_id`): a document of the tenant, its name and bytes; null when there is none. */
  readTagFile(id: string): Promise<{ name: string; bytes: Uint8Array } | null>;
  /** What an image shows, from the vision model (`llmId`, else VISION_MODEL): OpenAI-compatible chat with an `image_url` part. */
  describeImage(request: PipelineImageRequest, signal: AbortSignal): Promise<string>;
  /** The text of an audio file, from ASR_MODEL over OpenAI-compatible `/audio/transcriptions`. */
  transcribe(request: { llmId: string; name: string; audio: Uint8Array }, signal: AbortSignal): Promise<string>;
  /** Embeddings for texts with the dataset's embedding model (Tokenizer). */
  embed(texts: string[], signal: AbortSignal): Promise<number[][]>;
  /** Reports progress within the step (0..1) and a message; carriers heartbeat and update the document. */
  progress(fraction: number, message: string): void;
}

/** How a step's per-item model work splits, so a carrier can fan it out in bounded, heartbeated batches. */
export interface ItemPlan {
  /** How many independent items the step processes (0: the step runs whole through `runStep`). */
  items: number;
}

/** The functions a carrier needs; src/io/knowledge/pipeline/index.ts exports an object of this shape. */
export interface PipelineSteps {
  /** Runs a whole step (every component; for Extractor only when `planItems` says 0 items). */
  runStep(step: PipelineStep, input: PipelinePayload, services: PipelineServices, signal: AbortSignal): Promise<PipelinePayload>;
  /** The per-item fan-out of a step (Extractor over chunks); 0 items for every other step. */
  planItems(step: PipelineStep, input: PipelinePayload): ItemPlan;
  /** Processes items [from, to) of a planned step; results are JSON values, one per item, in order. */
  runItems(step: PipelineStep, input: PipelinePayload, from: number, to: number, services: PipelineServices, signal: AbortSignal): Promise<unknown[]>;
  /** Folds every item's result (in order) into the step's output payload. */
  applyItems(step: PipelineStep, input: PipelinePayload, results: unknown[]): PipelinePayload;
}
