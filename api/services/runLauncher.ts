/**
 * Starts canvas runs: records the run, then starts its workflow with the canvas title as memo and
 * the search attributes operators filter by. The workflow id names the canvas and the run.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { redactSecrets, slimForRun } from '../../src/dsl/secrets';
import type { SessionState } from '../../src/engine/state';
import { AppError } from '../../src/errors';
import type { CanvasRecord, Store } from '../../src/store/types';
import { CANVAS_ID_KEY, RUN_STATUS_KEY, SESSION_ID_KEY, TENANT_ID_KEY } from '../../src/temporal/searchAttributes';
import { workflowIdFor, type CanvasRunInput, type RunSettings } from '../../workflows/definitions';

export interface LaunchDeps {
  store: Store;
  client: Client;
  taskQueue: string;
  settings: RunSettings;
}

export interface LaunchRequest {
  tenantId: string;
  canvas: CanvasRecord;
  sessionId: string | null;
  query: unknown;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string;
  session: SessionState | null;
  /** A run id chosen by the caller (e.g. to claim a session with it first). */
  runId?: string;
  /** A webhook call (Begin in Webhook mode): `{query, headers, body, input}`. */
  webhook?: Record<string, unknown>;
}

export interface LaunchedRun {
  runId: string;
  messageId: string;
  workflowId: string;
}

/** RAGFlow-style ids: 32 hex characters. */
export function newId(): string {
  return randomUUID().replace(/-/g, '');
}

export async function launchRun(deps: LaunchDeps, req: LaunchRequest): Promise<LaunchedRun> {
  const runId = req.runId ?? newId();
  const messageId = newId();
  const workflowId = workflowIdFor(req.canvas.id, runId);
  await deps.store.runs.create({ id: runId, tenantId: req.tenantId, canvasId: req.canvas.id, sessionId: req.sessionId, workflowId, canvasVersionId: req.canvas.version_id });
  const input: CanvasRunInput = {
    runId,
    messageId,
    tenantId: req.tenantId,
    canvasId: req.canvas.id,
    sessionId: req.sessionId,
    title: req.canvas.title,
    dsl: redactSecrets(slimForRun(req.canvas.dsl)),
    query: req.query,
    inputs: req.inputs,
    files: req.files,
    userId: req.userId,
    session: req.session,
    settings: deps.settings,
    ...(req.webhook ? { webhook: req.webhook } : {}),
  };
  try {
    await deps.client.workflow.start('canvasRun', {
      taskQueue: deps.taskQueue,
      workflowId,
      args: [input],
      memo: { title: req.canvas.title, canvasVersionId: req.canvas.version_id },
      typedSearchAttributes: [
        { key: CANVAS_ID_KEY, value: req.canvas.id },
        { key: TENANT_ID_KEY, value: req.tenantId },
        { key: RUN_STATUS_KEY, value: 'running' },
        ...(req.sessionId ? [{ key: SESSION_ID_KEY, value: req.sessionId }] : []),
      ],
    });
  } catch (err) {
    await deps.store.runs.setStatus(runId, 'failed', { error: `could not start the workflow: ${err instanceof Error ? err.message : String(err)}` });
    throw new AppError('TEMPORAL_UNAVAILABLE', `Could not start the run on Temporal: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { runId, messageId, workflowId };
}
