/**
 * Run bookkeeping activities: recording events (and the run's status with them) and closing a
 * run (its result, and the session's next turn). Both are idempotent, so retries are harmless.
 */
import { ApplicationFailure } from '@temporalio/common';
import { redactSecrets, slimForRun } from '../src/core/dsl/secrets';
import { workflowIdFor, type CanvasRunResult } from '../workflows/definitions';
import { nestEvents, type NestTarget, type RunEvent } from '../src/core/engine/runEvents';
import type { RunStatus, SessionState } from '../src/core/engine/state';
import type { BatchSnapshot } from '../src/core/engine/snapshots';
import type { Store } from '../src/io/store/contract';
import type { Logger } from '../src/io/log';
import { observeNodeEvents, runsEnded } from '../src/io/metrics/registry';

export interface AppendRunEventsInput {
  runId: string;
  events: RunEvent[];
  /** Set when the run's status changed with these events. */
  status?: RunStatus;
  /** A child run (InvokeCanvas): also mirror the events into the parent's log. */
  mirror?: NestTarget;
  /** States before batches, kept for forks (src/core/engine/snapshots.ts); only ever in local activities' inputs, never in history. */
  snapshots?: BatchSnapshot[];
}

export interface FinalizeRunInput {
  runId: string;
  sessionId: string | null;
  messageId: string;
  result: CanvasRunResult;
  /** The conversation state for the next turn; null keeps the previous one (failed, canceled). */
  session: SessionState | null;
  /** The run's last events, written with the run's end in one statement, so readers see a settled run. */
  events: RunEvent[];
  mirror?: NestTarget;
  /** As in AppendRunEventsInput: the batch snapshots not written yet. */
  snapshots?: BatchSnapshot[];
}

export interface RegisterChildRunInput {
  runId: string;
  parentRunId: string;
  workflowId: string;
}

export interface PrepareChildCanvasInput {
  parentRunId: string;
  childRunId: string;
  canvasId: string;
}

/** What a child canvas run starts with (the rest comes from its parent). */
export interface PreparedChildCanvas {
  tenantId: string;
  title: string;
  /** The normalized DSL, credential params redacted, editor layout left out. */
  dsl: unknown;
  workflowId: string;
}

export interface RunActivityDeps {
  store: Store;
  log: Logger;
  /** Notified after a run ends (the API uses it to wake waiting requests). */
  onRunFinished?: (runId: string) => void;
}

export function createRunActivities(deps: RunActivityDeps) {
  const { store, log } = deps;
  return {
    /**
     * Records a sub-agent's run under its parent's tenant, canvas and canvas version (its tools
     * read their params from that version). Idempotent.
     */
    async registerChildRun(input: RegisterChildRunInput): Promise<void> {
      const parent = await store.runs.getById(input.parentRunId);
      if (!parent) throw ApplicationFailure.nonRetryable(`the parent run ${input.parentRunId} does not exist`, 'NOT_FOUND');
      await store.runs.create({
        id: input.runId,
        tenantId: parent.tenant_id,
        canvasId: parent.canvas_id,
        sessionId: null,
        workflowId: input.workflowId,
        canvasVersionId: parent.canvas_version_id,
        parentRunId: parent.id,
      });
    },

    /**
     * Records a child canvas run (InvokeCanvas) under its parent and reads the canvas it runs:
     * the parent's tenant's only. Idempotent.
     */
    async prepareChildCanvasRun(input: PrepareChildCanvasInput): Promise<PreparedChildCanvas> {
      const parent = await store.runs.getById(input.parentRunId);
      if (!parent) throw ApplicationFailure.nonRetryable(`the parent run ${input.parentRunId} does not exist`, 'NOT_FOUND');
      const canvas = await store.canvases.get(parent.tenant_id, input.canvasId);
      if (!canvas) throw ApplicationFailure.nonRetryable(`InvokeCanvas: no agent ${input.canvasId} for this tenant`, 'NOT_FOUND');
      const workflowId = workflowIdFor(canvas.id, input.childRunId);
      await store.runs.create({
        id: input.childRunId,
        tenantId: parent.tenant_id,
        canvasId: canvas.id,
        sessionId: null,
        workflowId,
        canvasVersionId: canvas.version_id,
        parentRunId: parent.id,
      });
      return { tenantId: parent.tenant_id, title: canvas.title, dsl: redactSecrets(slimForRun(canvas.dsl)), workflowId };
    },

    /** Appends events to the run's log and updates its status. */
    async appendRunEvents(input: AppendRunEventsInput): Promise<void> {
      if (input.snapshots?.length) await store.travel.putSnapshots(input.runId, input.snapshots);
      if (input.events.length > 0) await store.events.append(input.runId, input.events);
      observeNodeEvents(input.events);
      if (input.mirror && input.events.length > 0) await store.events.append(input.mirror.runId, nestEvents(input.mirror, input.events));
      if (input.status && input.status !== 'finished' && input.status !== 'failed' && input.status !== 'canceled') {
        await store.runs.setStatus(input.runId, input.status);
      }
    },

    /**
     * Stores the run's result, hands the conversation state to the session's next turn, then
     * writes the last events. Each step is idempotent, so a retry after a partial failure is safe.
     */
    async finalizeRun(input: FinalizeRunInput): Promise<void> {
      const { result } = input;
      // Before the end: a fork of a run that reads as ended finds every snapshot it had.
      if (input.snapshots?.length) await store.travel.putSnapshots(input.runId, input.snapshots);
      const completed = input.session
        ? { messages: [{ role: 'assistant' as const, content: result.content, id: input.messageId, created_at: Date.now() / 1000 }], state: input.session }
        : undefined;
      await store.runs.finish(
        input.runId,
        {
          status: result.status,
          result: { ...result },
          error: result.error,
          ...(input.sessionId ? { session: { id: input.sessionId, ...(completed ? { completed } : {}) } } : {}),
        },
        input.events,
      );
      if (input.mirror) await store.events.append(input.mirror.runId, nestEvents(input.mirror, input.events));
      observeNodeEvents(input.events);
      runsEnded.inc({ status: result.status });
      log.info('run ended', { runId: input.runId, status: result.status, calls: result.usage.calls, tokens: result.usage.total_tokens });
      deps.onRunFinished?.(input.runId);
    },
  };
}
