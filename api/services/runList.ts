/**
 * The tenant's runs as a list (the run view's runs page, `GET /api/v1/runs`): newest first,
 * filtered by canvas, status and session, one page at a time, each row with what an operator
 * scans for — the canvas title, how long it took (or has been going), its token usage and who
 * started it (the session's user, or the run that started it as a sub-agent or child canvas).
 */
import type { Queryable, RunRecordStatus } from '../../src/io/store/contract';
import { pageClause, SqlParams } from '../../src/io/store/sql';

export const RUN_STATUSES: readonly RunRecordStatus[] = ['running', 'paused', 'finished', 'failed', 'canceled'];

export interface RunListFilter {
  canvasId?: string;
  statuses?: RunRecordStatus[];
  sessionId?: string;
  page: number;
  pageSize: number;
}

interface RunListRow {
  id: string;
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
  usage: Record<string, number> | string | null;
  session_user: string | null;
}

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
  started_by: { kind: 'user' | 'run' | 'webhook' | 'document'; id: string };
}

/** An ingestion pipeline's run parses a document under its workflow id (workflows/indexDocument.ts indexWorkflowId). */
const PARSE_WORKFLOW_PREFIX = 'index-document-';

function itemOf(row: RunListRow, now: number): RunListItem {
  // PGlite and pg hand back json columns parsed; a text form is tolerated all the same.
  const usage = typeof row.usage === 'string' ? (JSON.parse(row.usage) as Record<string, number>) : row.usage;
  const startedBy: RunListItem['started_by'] = row.parent_run_id
    ? { kind: 'run', id: row.parent_run_id }
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
    create_time: Number(row.create_time),
    update_time: Number(row.update_time),
    finish_time: row.finish_time === null ? null : Number(row.finish_time),
    duration_ms: Math.max(0, (row.finish_time === null ? now : Number(row.finish_time)) - Number(row.create_time)),
    usage: usage ?? null,
    started_by: startedBy,
  };
}

/** One page of the tenant's runs, newest first, and how many match in all. */
export async function listRuns(db: Queryable, tenantId: string, filter: RunListFilter): Promise<{ items: RunListItem[]; total: number }> {
  const params = new SqlParams();
  const where = [`r.tenant_id = ${params.add(tenantId)}`];
  if (filter.canvasId) where.push(`r.canvas_id = ${params.add(filter.canvasId)}`);
  if (filter.sessionId) where.push(`r.session_id = ${params.add(filter.sessionId)}`);
  if (filter.statuses && filter.statuses.length > 0) where.push(`r.status IN (${filter.statuses.map((s) => params.add(s)).join(', ')})`);
  const whereSql = where.join(' AND ');
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM runs r WHERE ${whereSql}`, params.values());
  const page = pageClause(filter, params);
  const rows = await db.query<RunListRow>(
    `SELECT r.id, r.canvas_id, c.title AS canvas_title, r.session_id, r.workflow_id, r.parent_run_id, r.status, r.error,
            r.create_time, r.update_time, r.finish_time, r.result -> 'usage' AS usage, s.user_id AS session_user
     FROM runs r
     LEFT JOIN canvases c ON c.id = r.canvas_id AND c.tenant_id = r.tenant_id
     LEFT JOIN sessions s ON s.id = r.session_id AND s.tenant_id = r.tenant_id
     WHERE ${whereSql}
     ORDER BY r.create_time DESC, r.id DESC ${page}`,
    params.values(),
  );
  const now = Date.now();
  return { items: rows.rows.map((row) => itemOf(row, now)), total: count.rows[0]?.total ?? 0 };
}
