/**
 * Runs across rows: the tenant's runs a page at a time (the runs page, `GET /api/v1/runs`), each
 * with its canvas's title, its usage and its session's user; and the runs in progress in the
 * whole deployment (the active-runs gauge), which only the store knows once API and workers are
 * apart.
 */
import { pageClause, SqlParams } from './sql';
import type { Queryable } from './dbContract';
import type { RunIndex, RunRecordStatus, RunSummary } from './runTypes';

interface RunSummaryRow extends Omit<RunSummary, 'usage' | 'ledger_usage'> {
  usage: Record<string, number> | string | null;
  ledger_usage: Record<string, number | string> | string | null;
}

/** The ledger's sums as numbers (bigint sums come back as text). */
function ledgerUsageOf(raw: RunSummaryRow['ledger_usage']): RunSummary['ledger_usage'] {
  const row = typeof raw === 'string' ? (JSON.parse(raw) as Record<string, number | string>) : raw;
  if (!row) return null;
  return { calls: Number(row.calls ?? 0), prompt_tokens: Number(row.prompt_tokens ?? 0), completion_tokens: Number(row.completion_tokens ?? 0) };
}

function summaryOf(row: RunSummaryRow): RunSummary {
  // PGlite and pg hand back json columns parsed; a text form is tolerated all the same.
  const usage = typeof row.usage === 'string' ? (JSON.parse(row.usage) as Record<string, number>) : row.usage;
  return {
    ...row,
    create_time: Number(row.create_time),
    update_time: Number(row.update_time),
    finish_time: row.finish_time === null ? null : Number(row.finish_time),
    usage: usage ?? null,
    ledger_usage: ledgerUsageOf(row.ledger_usage),
  };
}

export function runIndexRepository(db: Queryable): RunIndex {
  return {
    async list(tenantId, filter) {
      const params = new SqlParams();
      const where = [`r.tenant_id = ${params.add(tenantId)}`];
      if (filter.canvasId) where.push(`r.canvas_id = ${params.add(filter.canvasId)}`);
      if (filter.sessionId) where.push(`r.session_id = ${params.add(filter.sessionId)}`);
      if (filter.statuses && filter.statuses.length > 0) where.push(`r.status IN (${filter.statuses.map((s) => params.add(s)).join(', ')})`);
      const whereSql = where.join(' AND ');
      const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM runs r WHERE ${whereSql}`, params.values());
      const page = pageClause(filter, params);
      const rows = await db.query<RunSummaryRow>(
        `SELECT r.id, r.canvas_id, c.title AS canvas_title, r.session_id, r.workflow_id, r.parent_run_id, r.status, r.error,
                r.create_time, r.update_time, r.finish_time, r.result -> 'usage' AS usage, s.user_id AS session_user,
                -- A canceled run's cut model call is in the ledger only (api/services/runFacts.ts).
                CASE WHEN r.status = 'canceled' THEN
                  (SELECT json_build_object('calls', count(*), 'prompt_tokens', coalesce(sum(m.prompt_tokens), 0),
                                            'completion_tokens', coalesce(sum(m.completion_tokens), 0))
                   FROM model_calls m WHERE m.root_run_id = r.id)
                END AS ledger_usage
         FROM runs r
         LEFT JOIN canvases c ON c.id = r.canvas_id AND c.tenant_id = r.tenant_id
         LEFT JOIN sessions s ON s.id = r.session_id AND s.tenant_id = r.tenant_id
         WHERE ${whereSql}
         ORDER BY r.create_time DESC, r.id DESC ${page}`,
        params.values(),
      );
      return { items: rows.rows.map(summaryOf), total: count.rows[0]?.total ?? 0 };
    },
    async countActive() {
      // The run reconciler's own filter: a run is in progress while running or paused.
      const result = await db.query<{ status: RunRecordStatus; n: number }>(
        `SELECT status, count(*)::int AS n FROM runs WHERE status IN ('running', 'paused') GROUP BY status`,
      );
      return new Map(result.rows.map((r) => [r.status, Number(r.n)]));
    },
  };
}
