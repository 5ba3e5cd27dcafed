/**
 * Agent sessions (RAGFlow's API4Conversation). Tenant-facing reads are scoped by tenant and
 * agent; the run-facing writes (claim, completeTurn, release) act by session id because the
 * run that calls them was already authorized when it started.
 */
import { SqlParams, jsonParam, orderBy, pageClause } from './sql';
import { stampNow } from './time';
import type { Queryable, SessionRecord, Store } from './contract';

const SESSION_COLUMNS = 'id, tenant_id, agent_id, name, user_id, source, messages, state, active_run_id, create_time, update_time, create_date, update_date';
const SESSION_ORDER_COLUMNS: Record<string, string> = { create_time: 'create_time', update_time: 'update_time' };

/** The sessions repository over `db`. */
export function sessionsRepository(db: Queryable): Store['sessions'] {
  return {
    async create(input) {
      const now = stampNow();
      const result = await db.query<SessionRecord>(
        `INSERT INTO sessions (id, tenant_id, agent_id, name, user_id, source, messages, state, active_run_id,
                               create_time, update_time, create_date, update_date)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, NULL, $9, $9, $10, $10)
         RETURNING ${SESSION_COLUMNS}`,
        [
          input.id,
          input.tenantId,
          input.agentId,
          input.name,
          input.userId,
          input.source,
          jsonParam(input.messages),
          jsonParam(input.state),
          now.time,
          now.date,
        ],
      );
      return result.rows[0]!;
    },

    async get(tenantId, agentId, id) {
      const result = await db.query<SessionRecord>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE tenant_id = $1 AND agent_id = $2 AND id = $3`, [
        tenantId,
        agentId,
        id,
      ]);
      return result.rows[0] ?? null;
    },

    async list(tenantId, agentId, filter) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`, `agent_id = ${params.add(agentId)}`];
      if (filter.id) where.push(`id = ${params.add(filter.id)}`);
      if (filter.userId) where.push(`user_id = ${params.add(filter.userId)}`);
      const whereSql = where.join(' AND ');
      const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM sessions WHERE ${whereSql}`, params.values());
      const page = pageClause(filter, params);
      const items = await db.query<SessionRecord>(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE ${whereSql} ${orderBy(filter, SESSION_ORDER_COLUMNS, 'update_time')} ${page}`,
        params.values(),
      );
      return { items: items.rows, total: count.rows[0]?.total ?? 0 };
    },

    async delete(tenantId, agentId, id) {
      const result = await db.query('DELETE FROM sessions WHERE tenant_id = $1 AND agent_id = $2 AND id = $3 RETURNING id', [tenantId, agentId, id]);
      return result.rows.length > 0;
    },

    async claim(id, runId) {
      // One conditional UPDATE: two runs racing for the session cannot both win.
      const result = await db.query(
        `UPDATE sessions SET active_run_id = $2
         WHERE id = $1 AND (active_run_id IS NULL OR active_run_id = $2)
         RETURNING id`,
        [id, runId],
      );
      return result.rows.length > 0;
    },

    async completeTurn(id, runId, messages, state) {
      const now = stampNow();
      await db.query(
        // Only the run holding the session may complete its turn, once: a retried call after
        // success finds the claim gone and changes nothing.
        `UPDATE sessions
         SET messages = messages || $3::jsonb,
             state = $4::jsonb,
             active_run_id = NULL,
             update_time = $5,
             update_date = $6
         WHERE id = $1 AND active_run_id = $2`,
        [id, runId, jsonParam(messages), jsonParam(state), now.time, now.date],
      );
    },

    async release(id, runId) {
      await db.query('UPDATE sessions SET active_run_id = NULL WHERE id = $1 AND active_run_id = $2', [id, runId]);
    },

    async abandonTurn(id, runId, since) {
      // The user message of a turn that never ran goes with the claim, in one statement; earlier
      // messages (created before the run) stay.
      const result = await db.query(
        `UPDATE sessions
         SET messages = (SELECT coalesce(jsonb_agg(m ORDER BY i), '[]'::jsonb)
                         FROM jsonb_array_elements(messages) WITH ORDINALITY AS t(m, i)
                         WHERE NOT (m->>'role' = 'user' AND (m->>'created_at')::float8 >= $3)),
             active_run_id = NULL
         WHERE id = $1 AND active_run_id = $2
         RETURNING id`,
        [id, runId, since],
      );
      return result.rows.length > 0;
    },

    async releaseOrphans(endedBefore, limit) {
      // Locks held by a run that has no row, or whose run ended long enough ago that whatever
      // ended it is done with the session (finalize ends both at once; the reconciler and a
      // cancel end the row first, then release).
      const result = await db.query<{ id: string }>(
        `UPDATE sessions SET active_run_id = NULL
         WHERE id IN (SELECT s.id FROM sessions s LEFT JOIN runs r ON r.id = s.active_run_id
                      WHERE s.active_run_id IS NOT NULL
                        AND (r.id IS NULL OR (r.status IN ('finished', 'failed', 'canceled') AND r.finish_time < $1))
                      LIMIT $2)
         RETURNING id`,
        [endedBefore, limit],
      );
      return result.rows.length;
    },

    async appendMessages(id, messages) {
      if (messages.length === 0) return;
      const now = stampNow();
      await db.query('UPDATE sessions SET messages = messages || $2::jsonb, update_time = $3, update_date = $4 WHERE id = $1', [
        id,
        jsonParam(messages),
        now.time,
        now.date,
      ]);
    },
  };
}
