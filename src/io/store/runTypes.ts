/** Runs as the store keeps them, lists them and counts them. */
import type { SessionMessage } from './sessionTypes';
import type { SessionState } from '../../core/engine/state';

export type RunRecordStatus = 'running' | 'paused' | 'finished' | 'failed' | 'canceled';

/** What ends a run (runs.finish). */
export interface RunEnd {
  status: RunRecordStatus;
  result: Record<string, unknown> | null;
  error: string | null;
  /** The session the run held: its turn completed with these messages and state, or (no `completed`) released. */
  session?: { id: string; completed?: { messages: SessionMessage[]; state: SessionState } };
}

export interface RunRecord {
  id: string;
  tenant_id: string;
  canvas_id: string;
  session_id: string | null;
  workflow_id: string;
  status: RunRecordStatus;
  /** Final outputs, content, usage... (set when the run ends). */
  result: Record<string, unknown> | null;
  error: string | null;
  create_time: number;
  update_time: number;
  finish_time: number | null;
  /** The canvas version the run started from (tools read their real params from it). */
  canvas_version_id: string | null;
  /** The run that started this one (a sub-agent's child run). */
  parent_run_id: string | null;
}

/** A page of a tenant's runs (runIndex.list): newest first, filtered by canvas, statuses and session. */
export interface RunListFilter {
  canvasId?: string;
  statuses?: RunRecordStatus[];
  sessionId?: string;
  page: number;
  pageSize: number;
}

/** A run as a list shows it: its row without its result, with what an operator scans for. */
export interface RunSummary extends Omit<RunRecord, 'tenant_id' | 'result' | 'canvas_version_id'> {
  /** The canvas's title (null once the canvas is deleted). */
  canvas_title: string | null;
  /** The result's token usage, known once the run ended. */
  usage: Record<string, number> | null;
  /** The user of the session the run belongs to, if any. */
  session_user: string | null;
  /** A canceled run's model calls as the ledger sums them (its cut call included); null for other runs. */
  ledger_usage: { calls: number; prompt_tokens: number; completion_tokens: number } | null;
}

/** Runs across rows: the runs page and the active-runs gauge. */
export interface RunIndex {
  /** One page of the tenant's runs, newest first, and how many match in all. */
  list(tenantId: string, filter: RunListFilter): Promise<{ items: RunSummary[]; total: number }>;
  /** Runs running or paused in the whole deployment, per status (statuses without any are absent). */
  countActive(): Promise<Map<RunRecordStatus, number>>;
}
