/**
 * The tenant's runs as a list (the run view's runs page, `GET /api/v1/runs`): newest first,
 * filtered by canvas, status and session, one page at a time, each row with what an operator
 * scans for — the canvas title, how long it took (or has been going), its token usage and who
 * started it (the session's user, or the run that started it as a sub-agent or child canvas).
 */
import type { RunListFilter, RunRecordStatus, RunSummary, Store } from '../../src/io/store/contract';

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
  usage: Record<string, number> | null;
  started_by: { kind: 'user' | 'run' | 'webhook' | 'document' | 'schedule'; id: string };
}

/** The user a scheduled run acts as is `schedule:<id>` (server/boot/scheduledRuns.ts scheduleUser). */
const SCHEDULE_USER_PREFIX = 'schedule:';

/** An ingestion pipeline's run parses a document under its workflow id (workflows/indexDocument.ts indexWorkflowId). */
const PARSE_WORKFLOW_PREFIX = 'index-document-';

function itemOf(row: RunSummary, now: number): RunListItem {
  const startedBy: RunListItem['started_by'] = row.parent_run_id
    ? { kind: 'run', id: row.parent_run_id }
    : row.session_user?.startsWith(SCHEDULE_USER_PREFIX)
      ? { kind: 'schedule', id: row.session_user.slice(SCHEDULE_USER_PREFIX.length) }
      : row.session_user
        ? { kind: 'user', id: row.session_user }
        : row.workflow_id.startsWith(PARSE_WORKFLOW_PREFIX)
          ? { kind: 'document', id: row.workflow_id.slice(PARSE_WORKFLOW_PREFIX.length) }
          : { kind: 'webhook', id: '' };
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
    usage: row.usage,
    started_by: startedBy,
  };
}

/** One page of the tenant's runs, newest first, and how many match in all. */
export async function listRuns(store: Store, tenantId: string, filter: RunListFilter): Promise<{ items: RunListItem[]; total: number }> {
  const { items, total } = await store.runIndex.list(tenantId, filter);
  const now = Date.now();
  return { items: items.map((row) => itemOf(row, now)), total };
}
