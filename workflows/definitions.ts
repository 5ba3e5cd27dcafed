/**
 * The run workflow's contract with its callers: input, result, signals and queries. The API
 * imports these definitions (they carry no workflow code).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { InputsSubmission } from '../src/engine/run';
import type { RunProgress } from '../src/engine/progress';
import type { RunSettings } from '../src/runSettings';
import type { NestTarget } from '../src/engine/events';
import type { EngineCall } from '../src/engine/step';
import type { RunState, RunStatus, RunUsage, SessionState } from '../src/engine/state';

export type { RunProgress };

export { DEFAULT_RUN_SETTINGS, type RunSettings } from '../src/runSettings';

/** Where a continued run picks up: the engine state and the calls it was about to make. */
export interface RunCheckpoint {
  state: RunState;
  calls: EngineCall[];
}

export interface CanvasRunInput {
  runId: string;
  /** The per-turn message id RAGFlow puts on every event. */
  messageId: string;
  tenantId: string;
  canvasId: string;
  sessionId: string | null;
  title: string;
  /** The normalized canvas DSL (secrets redacted). */
  dsl: unknown;
  query: unknown;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string;
  session: SessionState | null;
  settings: RunSettings;
  /** Set when the run continues as a new execution (long agent runs): where it picks up. */
  checkpoint?: RunCheckpoint;
  /** A webhook call (Begin in Webhook mode): `{query, headers, body, input}`. */
  webhook?: Record<string, unknown>;
  /** A child run (InvokeCanvas): where its events are mirrored in the parent's log. */
  nest?: NestTarget;
}

export interface CanvasRunResult {
  status: RunStatus;
  /** What the run showed the user (the concatenated messages). */
  content: string;
  outputs: unknown;
  usage: RunUsage;
  error: string | null;
}

/** Cancels the run: in-flight calls are cancelled, nothing further starts. */
export const cancelSignal = defineSignal<[reason?: string]>('cancel');
export const progressQuery = defineQuery<RunProgress>('progress');

/** What the inputs update answers: the pause it resumed (events after `seq` are the continuation). */
export interface InputsAccepted {
  seq: number;
}

/**
 * Submits form values to a run paused at a UserFillUp. A validator checks them against the form
 * first: a bad submission is rejected (the update never enters history) with an
 * ApplicationFailure of type `FORM_INVALID` whose details hold the field problems.
 */
export const submitInputsUpdate = defineUpdate<InputsAccepted, [InputsSubmission]>('submitInputs');

/** The failure type of a rejected submission. */
export const FORM_INVALID = 'FORM_INVALID';

export function workflowIdFor(canvasId: string, runId: string): string {
  return `canvas-${canvasId}-run-${runId}`;
}
