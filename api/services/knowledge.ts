/**
 * Datasets and documents as RAGFlow's API shows them, and indexing documents as Temporal
 * workflows (one per document: durable, cancellable, never blocking the API).
 */
import { parserConfigFloats } from '../pyFloats';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { pipelineRunEvents } from '../../src/io/knowledge/pipelineRunEvents';
import { knowledgeDeps } from '../../src/io/knowledge/deps';
import type { KnowledgeDeps } from '../../src/io/knowledge/search';
import type { DatasetRecord, DocumentRecord } from '../../src/io/store/knowledgeTypes';
import { indexWorkflowId } from '../../workflows/indexDocument';
import type { AppDeps } from '../deps';
import { newId } from '../../src/io/store/time';

export function knowledgeOf(deps: AppDeps): KnowledgeDeps {
  return deps.knowledge ?? knowledgeDeps(deps.store, {});
}

/** RAGFlow's dataset dict. */
export function datasetView(d: DatasetRecord): Record<string, unknown> {
  return {
    id: d.id,
    name: d.name,
    avatar: d.avatar,
    description: d.description,
    embedding_model: d.embedding_model,
    chunk_method: d.chunk_method,
    parser_config: parserConfigFloats(d.parser_config),
    permission: d.permission,
    document_count: d.document_count,
    chunk_count: d.chunk_count,
    token_num: d.token_num,
    tenant_id: d.tenant_id,
    created_by: d.tenant_id,
    language: d.language,
    pagerank: d.pagerank,
    pipeline_id: d.pipeline_id ?? null,
    similarity_threshold: 0.2,
    vector_similarity_weight: 0.3,
    status: '1',
    create_time: d.create_time,
    update_time: d.update_time,
    create_date: d.create_date,
    update_date: d.update_date,
  };
}

/** RAGFlow's document dict. */
export function documentView(doc: DocumentRecord, chunkMethod = 'naive'): Record<string, unknown> {
  return {
    id: doc.id,
    name: doc.name,
    location: doc.name,
    size: doc.size,
    type: doc.type === 'pdf' ? 'pdf' : 'doc',
    suffix: doc.type,
    dataset_id: doc.dataset_id,
    kb_id: doc.dataset_id,
    chunk_method: doc.chunk_method ?? chunkMethod,
    parser_config: parserConfigFloats(doc.parser_config),
    pipeline_id: null,
    created_by: doc.tenant_id,
    run: doc.run,
    status: doc.status,
    progress: doc.progress,
    progress_msg: doc.progress_msg,
    chunk_count: doc.chunk_count,
    token_count: doc.token_count,
    meta_fields: doc.meta_fields,
    source_type: 'local',
    thumbnail: null,
    // A datetime in RAGFlow: its JSON answers one as an HTTP date (`Sat, 28 Nov 2026 08:29:01 GMT`).
    process_begin_at: doc.process_begin_at === null ? null : new Date(doc.process_begin_at).toUTCString(),
    process_duration: doc.process_duration,
    create_time: doc.create_time,
    update_time: doc.update_time,
    create_date: doc.create_date,
    update_date: doc.update_date,
  };
}

/** Items per Extractor batch and batches in flight of `ingestPipeline` (PIPELINE_ITEM_BATCH, PIPELINE_ITEM_CONCURRENCY). */
function pipelineBatching(): { batchSize?: number; concurrency?: number } {
  const n = (v: string | undefined) => (v && Number.isInteger(Number(v)) && Number(v) > 0 ? Number(v) : undefined);
  return { batchSize: n(process.env.PIPELINE_ITEM_BATCH), concurrency: n(process.env.PIPELINE_ITEM_CONCURRENCY) };
}

/** The run row of a pipeline run (the run view lists it under the pipeline canvas; no session). */
async function recordPipelineRun(deps: AppDeps, tenantId: string, pipelineId: string, documentId: string): Promise<string> {
  const canvas = await deps.store.canvases.get(tenantId, pipelineId);
  const id = newId();
  await deps.store.runs.create({
    id,
    tenantId,
    canvasId: pipelineId,
    sessionId: null,
    workflowId: indexWorkflowId(documentId),
    canvasVersionId: canvas?.version_id ?? null,
  });
  return id;
}

/** Ends the run row of a pipeline run a new parse replaces (its workflow is terminated, so it cannot). */
async function endReplacedRun(deps: AppDeps, handle: WorkflowHandle): Promise<void> {
  const runId = (await handle.describe().catch(() => null))?.memo?.runId;
  if (typeof runId !== 'string') return;
  const run = await deps.store.runs.getById(runId);
  if (run && (run.status === 'running' || run.status === 'paused')) await pipelineRunEvents(deps.store).ended({ runId }, 'CANCEL', 'parsing started again');
}

/**
 * Starts (or restarts) indexing of documents; each runs as workflow `index-document-<id>`: the
 * built-in `indexDocument`, or `ingestPipeline` when the document's dataset names a pipeline.
 */
export async function startIndexing(deps: AppDeps, tenantId: string, documentIds: string[]): Promise<void> {
  const pipelineOf = new Map<string, string | null>();
  for (const documentId of documentIds) {
    const doc = await deps.store.knowledge.documents.get(tenantId, documentId);
    if (doc && !pipelineOf.has(doc.dataset_id))
      pipelineOf.set(doc.dataset_id, (await deps.store.knowledge.datasets.get(tenantId, doc.dataset_id))?.pipeline_id ?? null);
    const pipelineId = doc ? pipelineOf.get(doc.dataset_id) : null;
    // Begun now (RAGFlow's begin2parse): a stop of the previous parse that lands later leaves it alone.
    await deps.store.knowledge.documents.setProgress(documentId, { run: 'RUNNING', progress: 0, msg: 'Queued', begin: true });
    const start = async () => {
      if (!pipelineId)
        return deps.temporal.workflow.start('indexDocument', {
          taskQueue: deps.taskQueue,
          workflowId: indexWorkflowId(documentId),
          args: [{ tenantId, documentId }],
          memo: { title: `index ${documentId}` },
        });
      // A pipeline run is a run of its canvas: a row (before the start, as agent runs) and events.
      const runId = await recordPipelineRun(deps, tenantId, pipelineId, documentId);
      try {
        return await deps.temporal.workflow.start('ingestPipeline', {
          taskQueue: deps.taskQueue,
          workflowId: indexWorkflowId(documentId),
          args: [{ tenantId, documentId, pipelineId, runId, heartbeatTimeoutMs: deps.runSettings.heartbeatTimeoutMs, ...pipelineBatching() }],
          memo: { title: `pipeline ${pipelineId} over ${documentId}`, runId },
        });
      } catch (err) {
        await deps.store.runs.discard(runId);
        throw err;
      }
    };
    try {
      await start();
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      // Parsing again while a run is going: the newer request wins.
      const handle = deps.temporal.workflow.getHandle(indexWorkflowId(documentId));
      await handle.terminate('parsing started again');
      await endReplacedRun(deps, handle);
      await start();
    }
  }
}

/** Stops indexing of documents (harmless when none is running). */
export async function stopIndexing(deps: AppDeps, documentIds: string[]): Promise<void> {
  for (const documentId of documentIds) {
    try {
      const handle = deps.temporal.workflow.getHandle(indexWorkflowId(documentId));
      const d = await handle.describe();
      if (d.status.name === 'RUNNING') await handle.cancel();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
}
