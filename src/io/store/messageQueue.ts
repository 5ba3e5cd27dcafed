/**
 * The message policy of each agent, and the messages queued behind a session's running turn
 * (types in messageQueueTypes.ts; the queue is drained by api/services/turns/messageQueue.ts).
 */
import type { Queryable } from './dbContract';
import type { MessagePolicy, MessageQueueStore, QueuedMessage } from './messageQueueTypes';
import { jsonParam } from './sql';

const COLUMNS = 'id, tenant_id, session_id, canvas_id, run_id, request, create_time, taken_time, done_time, error';

export function messageQueueRepository(db: Queryable): MessageQueueStore {
  return {
    async policyOf(tenantId, canvasId) {
      const r = await db.query<{ policy: MessagePolicy }>('SELECT policy FROM agent_message_policies WHERE tenant_id = $1 AND canvas_id = $2', [
        tenantId,
        canvasId,
      ]);
      return r.rows[0]?.policy ?? null;
    },
    async setPolicy(tenantId, canvasId, policy) {
      await db.query(
        `INSERT INTO agent_message_policies (canvas_id, tenant_id, policy, update_time) VALUES ($1, $2, $3, $4)
         ON CONFLICT (canvas_id) DO UPDATE SET policy = EXCLUDED.policy, update_time = EXCLUDED.update_time`,
        [canvasId, tenantId, policy, Date.now()],
      );
    },
    async enqueue(m) {
      // One statement: the row, and how many waiting messages of the session are before it and it.
      const r = await db.query<QueuedMessage & { position: string | number }>(
        `WITH queued AS (
           INSERT INTO session_message_queue (id, tenant_id, session_id, canvas_id, run_id, request, create_time)
           VALUES ($1, $2, $3, $4, $5, $6::json, $7)
           RETURNING ${COLUMNS}, seq
         )
         SELECT ${COLUMNS.split(', ')
           .map((c) => `queued.${c}`)
           .join(', ')},
           1 + (SELECT count(*) FROM session_message_queue q WHERE q.session_id = queued.session_id AND q.done_time IS NULL) AS position
         FROM queued`,
        [m.id, m.tenant_id, m.session_id, m.canvas_id, m.run_id, jsonParam(m.request), Date.now()],
      );
      const { position, ...message } = r.rows[0]!;
      return { message, position: Number(position) };
    },
    async takeHead(sessionId, staleMs) {
      const now = Date.now();
      const r = await db.query<QueuedMessage>(
        `UPDATE session_message_queue SET taken_time = $2
         WHERE id = (SELECT id FROM session_message_queue WHERE session_id = $1 AND done_time IS NULL ORDER BY seq LIMIT 1)
           AND (taken_time IS NULL OR taken_time < $3)
         RETURNING ${COLUMNS}`,
        [sessionId, now, now - staleMs],
      );
      return r.rows[0] ?? null;
    },
    async markDone(id, error) {
      await db.query('UPDATE session_message_queue SET done_time = $2, error = $3 WHERE id = $1', [id, Date.now(), error ?? null]);
    },
    async release(id) {
      await db.query('UPDATE session_message_queue SET taken_time = NULL WHERE id = $1 AND done_time IS NULL', [id]);
    },
    async waitingSessions(limit) {
      const r = await db.query<{ tenant_id: string; session_id: string }>(
        `SELECT tenant_id, session_id FROM session_message_queue WHERE done_time IS NULL GROUP BY tenant_id, session_id ORDER BY min(seq) LIMIT $1`,
        [limit],
      );
      return r.rows;
    },
    async byRunId(runId) {
      const r = await db.query<QueuedMessage>(`SELECT ${COLUMNS} FROM session_message_queue WHERE run_id = $1`, [runId]);
      return r.rows[0] ?? null;
    },
  };
}
