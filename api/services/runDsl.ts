/**
 * The canvas DSL a run was started with, read back from its workflow's start (the first event of
 * its Temporal history): the run view draws a run from it when the canvas, and with it its saved
 * versions, was deleted. It is the run's own copy: normalized, secrets redacted, editor positions
 * dropped (src/core/dsl/secrets.ts, slimForRun).
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { AppError } from '../../src/errors';
import type { RunRecord } from '../../src/io/store/contract';
import type { CanvasRunInput } from '../../workflows/definitions';

export async function runDsl(client: Client, run: RunRecord): Promise<{ title: string | null; dsl: unknown }> {
  let start: CanvasRunInput | undefined;
  try {
    // One event is enough: the start, whose input is the workflow's argument.
    const res = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: run.workflow_id },
      maximumPageSize: 1,
    });
    const p = res.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    start = p ? defaultPayloadConverter.fromPayload<CanvasRunInput>(p) : undefined;
  } catch (err) {
    throw new AppError('NOT_FOUND', `The workflow history of run ${run.id} is not available: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!start?.dsl) throw new AppError('NOT_FOUND', `The workflow history of run ${run.id} holds no canvas`);
  return { title: start.title ?? null, dsl: start.dsl };
}
