/**
 * The activities of the `ingestPipeline` workflow (workflows/ingestPipeline.ts). Each reads the
 * payload it is handed by reference (a blob id), runs one step of the document's pipeline (or
 * one batch of a step's items) through the pipeline steps (src/io/knowledge/pipeline), stores
 * what it produced as a blob and answers its id: the workflow's history holds ids, never pages or
 * chunk lists. Long work heartbeats (so a cancel reaches it and a dead worker is noticed);
 * cancellation is rethrown; user errors are non-retryable and end the document FAIL.
 */
import { Context } from '@temporalio/activity';
import { AppError } from '../src/errors';
import { compilePipeline } from '../src/core/pipeline/compile';
import type { CompiledPipeline, PipelineStep } from '../src/core/pipeline/types';
import { createPipelineServices, documentMetadata, mergeMetadata, pipelineSteps, type PipelinePayload, type PipelineSteps } from '../src/io/knowledge/pipeline';
import type { LlmSettings } from '../src/io/llm/providers';
import type { ChunkIndex } from '../src/io/knowledge/chunkIndex';
import { embedderFor } from '../src/io/knowledge/embedder';
import type { KnowledgeDeps } from '../src/io/knowledge/search';
import type { Logger } from '../src/io/log';
import { toFailure } from './llm';
import { toNewChunk } from './pipelineCommit';
import { payloadSummary, pipelineRunEvents, type PipelineRunRef } from '../src/io/knowledge/pipelineRunEvents';

export interface PipelineRef extends PipelineRunRef {
  tenantId: string;
  documentId: string;
  pipelineId: string;
}

export interface StepAt extends PipelineRef {
  /** This run's chunk generation (chunk ids carry it, so a re-parse never overwrites live chunks in place). */
  generation: string;
  index: number;
  total: number;
  step: PipelineStep;
  inputRef: string;
}

/** The blob owner of a run's payloads (deleted once its chunks are committed). */
const payloadOwner = (documentId: string, generation: string) => `pipeline-${documentId}-${generation}`;

export interface PipelineActivityDeps extends KnowledgeDeps {
  log: Logger;
  index: ChunkIndex;
  llm: LlmSettings;
  /** The steps (default: every RAGFlow component, src/io/knowledge/pipeline). */
  steps?: PipelineSteps;
}

export function createPipelineActivities(deps: PipelineActivityDeps) {
  const { store } = deps;
  const steps = deps.steps ?? pipelineSteps;
  const runEvents = pipelineRunEvents(store);

  const loadDocument = async (ref: PipelineRef) => {
    const document = await store.knowledge.documents.get(ref.tenantId, ref.documentId);
    if (!document) throw new AppError('NOT_FOUND', `Document ${ref.documentId} no longer exists`);
    const dataset = await store.knowledge.datasets.get(ref.tenantId, document.dataset_id);
    if (!dataset) throw new AppError('NOT_FOUND', `The dataset of document ${document.name} no longer exists`);
    return { document, dataset };
  };
  const readPayload = async (ref: string): Promise<PipelinePayload> => {
    const text = await store.blobs.get(ref);
    if (text === null) throw new AppError('NOT_FOUND', `Pipeline payload ${ref} is missing (its run was cleaned up)`);
    return JSON.parse(text) as PipelinePayload;
  };
  const progressOf = (at: StepAt, fraction: number) => Math.min(0.99, 0.01 + (0.97 * (at.index + Math.max(0, Math.min(1, fraction)))) / at.total);

  /**
   * Runs `fn` as one heartbeating unit of pipeline work: progress lands on the document (RAGFlow's
   * `progress_msg` names the component), errors become Temporal failures, a cancel is rethrown.
   */
  const unit = async <T>(
    at: { documentId: string; index?: number; total?: number; step?: PipelineStep } & PipelineRef,
    fn: (ctx: Context, report: (fraction: number, message: string) => void) => Promise<T>,
  ): Promise<T> => {
    const ctx = Context.current();
    // Beats well inside the heartbeat timeout even while a step reports nothing (a cancel must reach it).
    const beat = setInterval(() => ctx.heartbeat(), Math.max(200, Math.min(5_000, (ctx.info.heartbeatTimeoutMs ?? 15_000) / 3)));
    let last = 0;
    const report = (fraction: number, message: string) => {
      ctx.heartbeat();
      const now = Date.now();
      if (now - last < 1000 || !at.step) return; // the document row is not a progress bar for every item
      last = now;
      const p = progressOf(at as StepAt, fraction);
      void store.knowledge.documents.setProgress(at.documentId, { progress: p, msg: `${at.step.component}: ${message}` }).catch(() => undefined);
    };
    try {
      ctx.heartbeat();
      return await fn(ctx, report);
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
      const appErr = err instanceof AppError ? err : new AppError('TOOL_UNAVAILABLE', err instanceof Error ? err.message : String(err));
      deps.log.warn('ingestion pipeline step failed', { documentId: at.documentId, step: at.step?.id, code: appErr.code, error: appErr.message });
      throw toFailure(appErr, false);
    } finally {
      clearInterval(beat);
    }
  };
  const servicesFor = async (at: StepAt, report: (fraction: number, message: string) => void) => {
    const { dataset } = await loadDocument(at);
    return createPipelineServices(
      { store, llm: deps.llm, embedding: deps.embedding },
      { tenantId: at.tenantId, embeddingModel: dataset.embedding_model, progress: report },
    );
  };

  return {
    /** Reads the dataset's pipeline canvas, compiles it, and stores the File step's input. */
    async loadPipeline(ref: PipelineRef): Promise<{ steps: CompiledPipeline['steps']; generation: string; inputRef: string }> {
      return unit(ref, async (ctx) => {
        const { document } = await loadDocument(ref);
        const canvas = await store.canvases.get(ref.tenantId, ref.pipelineId);
        if (!canvas) throw new AppError('NOT_FOUND', `The ingestion pipeline ${ref.pipelineId} of this dataset no longer exists`);
        const compiled = compilePipeline(canvas.dsl);
        if (!compiled.ok)
          throw new AppError(
            'DSL_INVALID',
            `The ingestion pipeline ${canvas.title} is invalid: ${compiled.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
          );
        const generation = (ctx.info.workflowExecution?.runId ?? ctx.info.activityId).replace(/-/g, '').slice(0, 12);
        const input: PipelinePayload = { name: document.name, file: { id: document.id, name: document.name, size: document.size } };
        const inputRef = await store.blobs.put(payloadOwner(document.id, generation), JSON.stringify(input));
        await runEvents.started(ref, { document_id: document.id, document_name: document.name, pipeline_id: ref.pipelineId });
        await store.knowledge.documents.setProgress(document.id, {
          run: 'RUNNING',
          progress: 0.01,
          msg: `Pipeline ${canvas.title}: ${compiled.pipeline.steps.map((s) => s.component).join(' → ')}`,
          begin: true,
        });
        return { steps: compiled.pipeline.steps, generation, inputRef };
      });
    },

    /** Runs a whole step, or answers how many items it fans out into (an Extractor over chunks). */
    async runPipelineStep(at: StepAt): Promise<{ outputRef: string } | { outputRef?: undefined; items: number }> {
      return unit(at, async (ctx, report) => {
        await runEvents.nodeStarted(at, at.index, at.step);
        const input = await readPayload(at.inputRef);
        const plan = steps.planItems(at.step, input);
        if (plan.items > 0) return { items: plan.items };
        report(0, 'started');
        const output = await steps.runStep(at.step, input, await servicesFor(at, report), ctx.cancellationSignal);
        const outputRef = await store.blobs.put(payloadOwner(at.documentId, at.generation), JSON.stringify(output));
        await store.knowledge.documents.setProgress(at.documentId, { progress: progressOf(at, 1), msg: `${at.step.component}: done` });
        await runEvents.nodeFinished(at, at.index, at.step, payloadSummary(output));
        return { outputRef };
      });
    },

    /** One batch [from, to) of a step's items; its results stored as one blob. */
    async runPipelineItems(at: StepAt & { from: number; to: number; items: number }): Promise<string> {
      return unit(at, async (ctx, report) => {
        const input = await readPayload(at.inputRef);
        const itemReport = (fraction: number, message: string) => report((at.from + fraction * (at.to - at.from)) / at.items, message);
        const results = await steps.runItems(at.step, input, at.from, at.to, await servicesFor(at, itemReport), ctx.cancellationSignal);
        if (results.length !== at.to - at.from)
          throw new AppError('INTERNAL', `${at.step.id} answered ${results.length} results for items ${at.from}..${at.to}`);
        const ref = await store.blobs.put(payloadOwner(at.documentId, at.generation), JSON.stringify(results));
        await store.knowledge.documents.setProgress(at.documentId, {
          progress: progressOf(at, at.to / at.items),
          msg: `${at.step.component}: items ${at.from + 1}–${at.to} of ${at.items} done`,
        });
        return ref;
      });
    },

    /** Folds every batch's results (in order) into the step's output payload. */
    async applyPipelineItems(at: StepAt & { resultRefs: string[] }): Promise<string> {
      return unit(at, async () => {
        const input = await readPayload(at.inputRef);
        const blobs = await store.blobs.getMany(at.resultRefs);
        const results = at.resultRefs.flatMap((ref) => {
          const text = blobs.get(ref);
          if (text === undefined) throw new AppError('NOT_FOUND', `Pipeline results ${ref} are missing`);
          return JSON.parse(text) as unknown[];
        });
        const output = steps.applyItems(at.step, input, results);
        const ref = await store.blobs.put(payloadOwner(at.documentId, at.generation), JSON.stringify(output));
        await runEvents.nodeFinished(at, at.index, at.step, { items: results.length, ...payloadSummary(output) });
        return ref;
      });
    },

    /**
     * Replaces the document's chunks with the pipeline's (see ARCHITECTURE "Ingestion pipelines"):
     * the new generation is indexed first, then swapped in by one store transaction, then the old
     * generation leaves the search index; the run's payload blobs are deleted.
     */
    async commitPipelineChunks(at: PipelineRef & { generation: string; outputRef: string }): Promise<{ chunks: number; tokens: number }> {
      return unit(at, async (ctx) => {
        const { document, dataset } = await loadDocument(at);
        // The payload goes last, with everything else done: a retry that finds it gone follows an
        // attempt that finished but whose worker died before Temporal heard (found by the
        // crash-point matrix). It answers from what that attempt stored instead of failing.
        if ((await store.blobs.get(at.outputRef)) === null) {
          const stored = await store.knowledge.chunks.list(document.tenant_id, document.id, {
            ids: [`${document.id}-${at.generation}-0`],
            page: 1,
            pageSize: 1,
          });
          if (stored.total > 0 && document.run === 'DONE') return { chunks: document.chunk_count, tokens: document.token_count };
        }
        const output = await readPayload(at.outputRef);
        const drafts = (output.chunks ?? []).map((c, i) => toNewChunk(document.id, at.generation, i, c));
        if (drafts.length === 0) throw new AppError('BAD_REQUEST', `The pipeline produced no chunks for ${document.name}`);
        const missing = drafts.filter((d) => !d.hasVector);
        if (missing.length > 0) {
          const embedder = embedderFor(dataset.embedding_model, deps.embedding);
          for (let i = 0; i < missing.length; i += 64) {
            const batch = missing.slice(i, i + 64);
            const vectors = await embedder.embed(
              batch.map((d) => d.content),
              ctx.cancellationSignal,
            );
            batch.forEach((d, j) => (d.embedding = vectors[j]!));
            ctx.heartbeat();
          }
        }
        const chunks = drafts.map(({ hasVector: _, ...c }) => c);
        await deps.index.indexDocument(document, chunks);
        const { replacedIds } = await store.knowledge.chunks.commitDocument(document, chunks);
        await deps.index.commitGeneration?.(document, at.generation);
        if (replacedIds.length > 0) {
          if (deps.index.removeChunks) await deps.index.removeChunks(document.tenant_id, replacedIds);
        }
        // RAGFlow merges the chunks' `metadata` into the document's metadata; built-in fields (file_name, update_time) then overwrite.
        const meta = documentMetadata(output.chunks ?? []);
        const builtIn = output.built_in_metadata ?? {};
        if (Object.keys(meta).length > 0 || Object.keys(builtIn).length > 0)
          await store.knowledge.documents.update(document.tenant_id, document.id, { metaFields: { ...mergeMetadata(document.meta_fields, meta), ...builtIn } });
        const tokens = chunks.reduce((n, c) => n + c.tokens, 0);
        await store.knowledge.documents.setProgress(document.id, {
          run: 'DONE',
          progress: 1,
          msg: `Done: ${chunks.length} chunks`,
          chunkCount: chunks.length,
          tokenCount: tokens,
        });
        await runEvents.finished(at, { chunks: chunks.length, tokens });
        await store.blobs.deleteForRun(payloadOwner(document.id, at.generation));
        return { chunks: chunks.length, tokens };
      });
    },
  };
}
