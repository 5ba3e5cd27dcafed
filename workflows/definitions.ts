/**
 * The run workflow's contract with its callers: input, result, signals and queries. The API
 * imports these definitions (they carry no workflow code).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RunProgress } from '../src/engine/run';
import type { RunStatus, RunUsage, SessionState } from '../src/engine/state';

export type { RunProgress };

/** Deployment settings a run carries (so it behaves the same after a worker restart). */
export interface RunSettings {
  /** Calls running at once (RAGFlow's batch bound, default 5). */
  maxParallel: number;
  /** Heartbeat timeout of long activities, ms: how soon a dead worker is noticed. */
  heartbeatTimeoutMs: number;
  /** Default per-attempt timeout of a component call, seconds (RAGFlow's COMPONENT_EXEC_TIMEOUT). */
  componentTimeoutS: number;
  /** Extra attempts for crashes and timeouts, on top of the component's max_retries. */
  infraRetries: number;
  /** Runaway guard: component executions per run. */
  maxSteps: number;
}

export const DEFAULT_RUN_SETTINGS: RunSettings = {
  maxParallel: 5,
  heartbeatTimeoutMs: 10_000,
  componentTimeoutS: 600,
  infraRetries: 5,
  maxSteps: 10_000,
};

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

export function workflowIdFor(canvasId: string, runId: string): string {
  return `canvas-${canvasId}-run-${runId}`;
}
