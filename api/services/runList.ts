/**
 * The tenant's runs as a list (the run view's runs page, `GET /api/v1/runs`): newest first,
 * filtered by canvas, status and session, one page at a time, each row with what an operator
 * scans for — the canvas title, how long it took (or has been going), its token usage and who
 * started it (the session's user, or the run that started it as a sub-agent or child canvas).
 *
 * Who started a run is read from the run's own row first: a run with a session was a session
 * turn even once that session is deleted (then `{kind: "session", id}` — its user went with it),
 * and only a run with neither a parent nor a session came in through a webhook.
 */
import type { RunListFilter, RunRecordStatus, RunSummary, Store } from '../../src/io/store/contract';
import { ledgerTotals, startedByOf, usageAfterCancel, type StartedBy } from './runFacts';

export const RUN_STATUSES: readonly RunRecordStatus[] = ['running', 'paused', 'finished', 'failed', 'canceled'];

export interface RunListItem {
  id: string;
  task_id: string;
  canvas_id: string;
  canvas_title: string | null;
  session_id: string | null;
  workflow_id: string;
  parent_run_id: string | null;
  status: RunRecordStatus;
  error: string | null;
  create_time: number;
  update_time: number;
  finish_time: number | null;
  /** Milliseconds from start to end, or to now for a run still going. */
  duration_ms: number;
  /** Known once the run ended (its result); null before. */
  usage: Record<string, number | boolean> | null;
  started_by: StartedBy;
  /** The canvas was deleted (its title is gone with it). */
  canvas_deleted: boolean;
  /** The run was a turn of a session that was deleted since. */
  session_deleted: boolean;
}

function itemOf(row: RunSummary, now: number): RunListItem {
  return {
    id: row.id,
    task_id: row.id,
    canvas_id: row.canvas_id,
    canvas_title: row.canvas_title,
    session_id: row.session_id,
    workflow_id: row.workflow_id,
    parent_run_id: row.parent_run_id,
    status: row.status,
    error: row.error,
    create_time: row.create_time,
    update_time: row.update_time,
    finish_time: row.finish_time,
    duration_ms: Math.max(0, (row.finish_time ?? now) - row.create_time),
    // A canceled run's cut model call is in the ledger only (runFacts.ts).
    usage: row.ledger_usage ? usageAfterCancel(row.usage, ledgerTotals(row.ledger_usage)) : row.usage,
    started_by: startedByOf(row),
    canvas_deleted: row.canvas_title === null,
    session_deleted: row.session_id !== null && row.session_user === null,
  };
}

/** One page of the tenant's runs, newest first, and how many match in all. */
export async function listRuns(store: Store, tenantId: string, filter: RunListFilter): Promise<{ items: RunListItem[]; total: number }> {
  const { items, total } = await store.runIndex.list(tenantId, filter);
  const now = Date.now();
  return { items: items.map((row) => itemOf(row, now)), total };
}
