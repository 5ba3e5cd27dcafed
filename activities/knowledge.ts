/**
 * Indexing a document: parse → chunk → embed (in batches) → store and index, reporting progress
 * on the document (RAGFlow's run/progress/progress_msg) and heartbeating, so a worker that dies
 * half-way hands the rest to another: a retry continues at the batch the last heartbeat reached
 * (chunk ids are deterministic and writes idempotent).
 */
import { Context } from '@temporalio/activity';
import { chunkSections } from '../src/io/knowledge/chunking';
import { AppError } from '../src/errors';
import type { DocumentRecord } from '../src/io/store/knowledgeTypes';
import { toFailure } from './llm';
import type { Logger } from '../src/io/log';
import type { ChunkIndex } from '../src/io/knowledge/chunkIndex';
import { embedderFor } from '../src/io/knowledge/embedder';
import { documentSections } from '../src/io/knowledge/parse';
import type { KnowledgeDeps } from '../src/io/knowledge/search';
import { pipelineRunEvents } from '../src/io/knowledge/pipelineRunEvents';

const BATCH = 32;

export interface IndexDocumentInput {
  tenantId: string;
  documentId: string;
}

async function loadDocument(deps: KnowledgeDeps, input: IndexDocumentInput): Promise<DocumentRecord> {
  const doc = await deps.store.knowledge.documents.get(input.tenantId, input.documentId);
  if (!doc) throw new AppError('NOT_FOUND', `Document ${input.documentId} no longer exists`);
  return doc;
}

export function createKnowledgeActivities(deps: KnowledgeDeps & { log: Logger; index: ChunkIndex }) {
  const { store } = deps;
  return {
    /** Parses, chunks, embeds and indexes one document. */
    async indexDocument(input: IndexDocumentInput): Promise<{ chunks: number; tokens: number }> {
      const ctx = Context.current();
      const resumeFrom = typeof ctx.info.heartbeatDetails === 'number' ? ctx.info.heartbeatDetails : 0;
      try {
        const doc = await loadDocument(deps, input);
        const dataset = await store.knowledge.datasets.get(input.tenantId, doc.dataset_id);
        if (!dataset) throw new AppError('NOT_FOUND', `The dataset of document ${doc.name} no longer exists`);
        if (resumeFrom === 0)
          await store.knowledge.documents.setProgress(doc.id, {
            run: 'RUNNING',
            progress: 0.01,
            msg: 'Parsing the document',
            begin: true,
            chunkCount: 0,
            tokenCount: 0,
          });
        const bytes = await store.knowledge.documents.content(doc.id);
        if (!bytes) throw new AppError('NOT_FOUND', `The file of document ${doc.name} is missing`);
        const pc = dataset.parser_config;
        const drafts = chunkSections(await documentSections(doc.type, bytes), {
          chunkTokens: typeof pc.chunk_token_num === 'number' ? pc.chunk_token_num : undefined,
          overlapPercent: typeof pc.overlapped_percent === 'number' ? pc.overlapped_percent : undefined,
          delimiter: typeof pc.delimiter === 'string' ? pc.delimiter : undefined,
        });
        if (drafts.length === 0) throw new AppError('BAD_REQUEST', `No text could be extracted from ${doc.name}`);
        if (resumeFrom === 0) {
          await store.knowledge.chunks.deleteForDocument(doc.id);
          await deps.index.removeDocuments(doc.tenant_id, [doc.id]);
        }
        const embedder = embedderFor(dataset.embedding_model, deps.embedding);
        for (let i = resumeFrom; i < drafts.length; i += BATCH) {
          const batch = drafts.slice(i, i + BATCH);
          const vectors = await embedder.embed(
            batch.map((d) => d.content),
            ctx.cancellationSignal,
          );
          const chunks = batch.map((d, j) => ({
            id: `${doc.id}-${d.position}`,
            content: d.content,
            section: d.section,
            position: d.position,
            tokens: d.tokens,
            embedding: vectors[j]!,
          }));
          await store.knowledge.chunks.add(doc, chunks);
          await deps.index.indexDocument(doc, chunks, { more: i + BATCH < drafts.length });
          const done = Math.min(drafts.length, i + BATCH);
          await store.knowledge.documents.setProgress(doc.id, {
            progress: 0.05 + (0.94 * done) / drafts.length,
            msg: `Embedded ${done}/${drafts.length} chunks`,
          });
          ctx.heartbeat(done);
        }
        const tokens = drafts.reduce((n, d) => n + d.tokens, 0);
        await store.knowledge.documents.setProgress(doc.id, {
          run: 'DONE',
          progress: 1,
          msg: `Done: ${drafts.length} chunks`,
          chunkCount: drafts.length,
          tokenCount: tokens,
        });
        return { chunks: drafts.length, tokens };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        const appErr = err instanceof AppError ? err : new AppError('TOOL_UNAVAILABLE', err instanceof Error ? err.message : String(err));
        deps.log.warn('indexing failed', { documentId: input.documentId, code: appErr.code, attempt: ctx.info.attempt, error: appErr.message });
        throw toFailure(appErr, false);
      }
    },

    /**
     * Records how indexing ended when it did not succeed (failed for good, or canceled), and ends
     * the pipeline's run (`runId`, ingestPipeline only). The document keeps a parse begun after
     * this was scheduled: a late stop never overwrites a fresh re-parse's RUNNING.
     */
    async finishDocumentIndexing(input: IndexDocumentInput & { outcome: 'FAIL' | 'CANCEL'; message: string; runId?: string }): Promise<void> {
      const scheduledAt = Context.current().info.scheduledTimestampMs;
      await store.knowledge.documents.setProgress(input.documentId, { run: input.outcome, msg: input.message, unlessBegunAfter: scheduledAt });
      await pipelineRunEvents(store).ended(input, input.outcome, input.message);
    },
  };
}
