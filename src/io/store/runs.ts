/** Runs: one row per canvas execution (a Temporal workflow), for status and final results. */
import type { RunEvent } from '../../core/engine/runEvents';
import type { AlongWrites } from './events';
import { endsRun, runEndWrites } from './runEnds';
import { jsonParam } from './sql';
import { stampNow } from './time';
import type { Queryable, RunRecord, Store } from './contract';

const RUN_COLUMNS =
  'id, tenant_id, canvas_id, session_id, workflow_id, status, result, error, create_time, update_time, finish_time, canvas_version_id, parent_run_id';

/** The runs repository over `db`; a run's end is written with its closing events by `events`. */
export function runsRepository(db: Queryable, events: { appendAlong(runId: string, events: RunEvent[], along: AlongWrites): Promise<void> }): Store['runs'] {
  return {
    finish(id, end, closing) {
      return events.appendAlong(id, closing, runEndWrites(id, end, stampNow()));
    },

    async create(input) {
      const now = Date.now();
      const result = await db.query<RunRecord>(
        `INSERT INTO runs (id, tenant_id, canvas_id, session_id, workflow_id, status, result, error, create_time, update_time, finish_time, canvas_version_id, parent_run_id)
         VALUES ($1, $2, $3, $4, $5, 'running', NULL, NULL, $6, $6, NULL, $7, $8)
         ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
         RETURNING ${RUN_COLUMNS}`,
        [input.id, input.tenantId, input.canvasId, input.sessionId, input.workflowId, now, input.canvasVersionId ?? null, input.parentRunId ?? null],
      );
      return result.rows[0]!;
    },

    async get(tenantId, id) {
      const result = await db.query<RunRecord>(`SELECT ${RUN_COLUMNS} FROM runs WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return result.rows[0] ?? null;
    },

    async children(parentRunId) {
      const result = await db.query<RunRecord>(`SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = $1 ORDER BY create_time, id`, [parentRunId]);
      return result.rows;
    },

    async getById(id) {
      const result = await db.query<RunRecord>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id]);
      return result.rows[0] ?? null;
    },

    async setStatus(id, status, extra = {}) {
      const now = Date.now();
      // Flags instead of SQL built per call: absent fields keep their value, null clears them.
      await db.query(
        `UPDATE runs
         SET status = $2,
             update_time = $3,
             finish_time = $4,
             result = CASE WHEN $5::boolean THEN $6::json ELSE result END,
             error = CASE WHEN $7::boolean THEN $8::text ELSE error END
         WHERE id = $1`,
        [
          id,
          status,
          now,
          endsRun(status) ? now : null,
          extra.result !== undefined,
          extra.result === undefined || extra.result === null ? null : jsonParam(extra.result),
          extra.error !== undefined,
          extra.error ?? null,
        ],
      );
    },

    async discard(id) {
      // Only a run that never produced anything: the start it was recorded for was refused.
      await db.query(`DELETE FROM runs WHERE id = $1 AND status = 'running' AND NOT EXISTS (SELECT 1 FROM run_events WHERE run_id = $1)`, [id]);
    },

    async correctStatus(id, seen, status) {
      const result = await db.query(
        `UPDATE runs SET status = $4, update_time = $5
         WHERE id = $1 AND status = $2 AND update_time = $3 AND status IN ('running', 'paused') RETURNING id`,
        [id, seen.status, seen.updateTime, status, Math.max(Date.now(), seen.updateTime + 1)],
      );
      return result.rows.length > 0;
    },

    async failIfActive(id, error) {
      // Conditional, so a run that ended meanwhile (its own finalize) keeps its outcome.
      const now = Date.now();
      const result = await db.query(
        `UPDATE runs SET status = 'failed', error = $2, update_time = $3, finish_time = $3
         WHERE id = $1 AND status IN ('running', 'paused') RETURNING id`,
        [id, error, now],
      );
      return result.rows.length > 0;
    },

    async unsettled(filter) {
      const cursor = filter.after ?? { time: -1, id: '' };
      const result = await db.query<RunRecord>(
        `SELECT ${RUN_COLUMNS} FROM runs
         WHERE status IN ('running', 'paused') AND update_time < $1 AND (update_time, id) > ($2, $3)
           -- A run waiting for its tenant's capacity has no workflow yet: tenant admission starts it.
           AND admission_start IS NULL
         ORDER BY update_time, id LIMIT $4`,
        [filter.before, cursor.time, cursor.id, filter.limit],
      );
      return result.rows;
    },

    async lastEvent(id) {
      const result = await db.query<{ seq: number; message_id: string; terminal: boolean }>(
        'SELECT seq, message_id, terminal FROM run_events WHERE run_id = $1 ORDER BY seq DESC, sub DESC LIMIT 1',
        [id],
      );
      return result.rows[0] ?? null;
    },

    async activeForSession(tenantId, sessionId) {
      const result = await db.query<RunRecord>(
        `SELECT ${RUN_COLUMNS} FROM runs
         WHERE tenant_id = $1 AND session_id = $2 AND status IN ('running', 'paused')
         ORDER BY create_time DESC, id DESC LIMIT 1`,
        [tenantId, sessionId],
      );
      return result.rows[0] ?? null;
    },
  };
}
