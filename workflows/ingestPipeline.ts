/**
 * One document through its dataset's ingestion pipeline (RAGFlow's `rag/flow` canvas), durably.
 * The workflow only walks the compiled steps and holds references: every payload (parsed pages,
 * chunk lists, per-item results) lives in the store as a blob, and history carries only blob ids.
 *
 *   loadPipeline → for each step: runPipelineStep (one activity), or, when the step plans
 *   per-item work (an Extractor over chunks), runPipelineItems over bounded batches (≤ batchSize
 *   items each, ≤ concurrency in flight, each heartbeating its results) then applyPipelineItems
 *   → commitPipelineChunks (the document's chunks replaced atomically).
 *
 * It runs under the built-in indexing's workflow id (`index-document-<docId>`), so starting a
 * parse again, stopping it and the document status code treat both paths alike. A cancel (stop
 * parsing) ends the document CANCEL with its previous chunks untouched (nothing is replaced
 * before the commit); a user error ends it FAIL with the message.
 */
import { proxyActivities, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import { withDocumentOutcome } from './documentOutcome';

/** Step activities; a heartbeat timeout of seconds hands a dead worker's batch to another quickly. */
const stepActivities = (heartbeatTimeoutMs: number) =>
  proxyActivities<Activities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
  });

export interface IngestPipelineInput {
  tenantId: string;
  documentId: string;
  /** The dataset's pipeline canvas; its DSL is read (and compiled) once, when the workflow starts. */
  pipelineId: string;
  /** The `runs` row the API recorded for this run: the activities write its events (the run view) and its end. */
  runId?: string;
  /** Items per runPipelineItems activity (default 32). */
  batchSize?: number;
  /** runPipelineItems activities in flight at once (default 4). */
  concurrency?: number;
  /** Heartbeat timeout of the step activities (default 60 s; the API passes its run settings' value). */
  heartbeatTimeoutMs?: number;
}

export interface IngestPipelineResult {
  chunks: number;
  tokens: number;
}

/** Runs `tasks` with at most `limit` of them in flight, results in order. */
async function bounded<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return results;
}

export async function ingestPipeline(input: IngestPipelineInput): Promise<IngestPipelineResult | null> {
  const batchSize = Math.max(1, input.batchSize ?? 32);
  const concurrency = Math.max(1, input.concurrency ?? 4);
  const steps = stepActivities(Math.max(1000, input.heartbeatTimeoutMs ?? 60_000));
  return withDocumentOutcome(input, async () => {
    const plan = await steps.loadPipeline(input);
    let payloadRef = plan.inputRef;
    for (let index = 0; index < plan.steps.length; index++) {
      const at = { ...input, generation: plan.generation, index, total: plan.steps.length, step: plan.steps[index]! };
      const ran = await steps.runPipelineStep({ ...at, inputRef: payloadRef });
      if (ran.outputRef !== undefined) {
        payloadRef = ran.outputRef;
        continue;
      }
      // The step fans out: its items in batches, each batch's results stored and referenced.
      const batches: Array<{ from: number; to: number }> = [];
      for (let from = 0; from < ran.items; from += batchSize) batches.push({ from, to: Math.min(ran.items, from + batchSize) });
      const resultRefs = await bounded(
        batches.map((b) => () => steps.runPipelineItems({ ...at, inputRef: payloadRef, ...b, items: ran.items })),
        concurrency,
      );
      payloadRef = await steps.applyPipelineItems({ ...at, inputRef: payloadRef, resultRefs });
    }
    return await steps.commitPipelineChunks({ ...input, generation: plan.generation, outputRef: payloadRef });
  });
}

// Pinned: its commands follow the compiled pipeline, so a changed step would change them (docs/ARCHITECTURE.md, "Deploying workflow changes").
setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' } : {}), ingestPipeline);
