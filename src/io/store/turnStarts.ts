/**
 * The rows a session turn starts with, written by one statement: the run row, the session's
 * claim and user message (on a session created by the same statement, or on an existing one),
 * the run's first event (`workflow_started`) and the wake-up of its readers. A start used to be
 * seven statements in a row; under a burst of starts on PGlite, whose one connection runs every
 * statement of the process in turn, each cost a few ms of queue, and the first event waited for
 * all of them. One statement is also all-or-nothing: a crash leaves the whole start or nothing,
 * and what it leaves (a run row without a workflow) is what the run reconciler repairs.
 *
 * `now` stamps the run row and the session; the user message must not be older than it (a start
 * that fails takes back the session's user messages from the run's creation on).
 */
import type { RunEvent } from '../../core/engine/runEvents';
import type { SessionState } from '../../core/engine/state';
import { RUN_EVENTS_CHANNEL } from './eventDispatch';
import { jsonParam } from './sql';
import { stampNow } from './time';
import type { Queryable, SessionMessage, SessionRecord } from './contract';
import type { NewSessionFields, TurnRun } from './startTypes';

export type { NewSessionFields, TurnRun };

const SESSION_COLUMNS = 'id, tenant_id, agent_id, name, user_id, source, messages, state, active_run_id, create_time, update_time, create_date, update_date';

/** The run row and its first event, from `$source` (a CTE yielding one row when the turn is on). */
function runAndAnnouncement(source: string): string {
  return `recorded AS (
     INSERT INTO runs (id, tenant_id, canvas_id, session_id, workflow_id, status, result, error, create_time, update_time, finish_time, canvas_version_id, parent_run_id)
     SELECT $1::text, $2::text, $3::text, ${source}.id, $4::text, 'running', NULL, NULL, $5::float8, $5::float8, NULL, $6::text, NULL FROM ${source}
     ON CONFLICT (id) DO NOTHING
   ), announced AS (
     INSERT INTO run_events (run_id, seq, sub, event, message_id, created_at, task_id, data, terminal)
     SELECT $1::text, e.seq, e.sub, e.event, e.message_id, e.created_at, e.task_id, e.data, false
     FROM ${source}, json_to_record($7::json) AS e(seq int, sub int, event text, message_id text, created_at double precision, task_id text, data json)
     ON CONFLICT (run_id, seq, sub) DO NOTHING
   )`;
}

function runParams(run: TurnRun, announcement: RunEvent, now: number): unknown[] {
  return [run.id, run.tenantId, run.canvasId, run.workflowId, now, run.canvasVersionId, jsonParam({ ...announcement, data: announcement.data ?? {} })];
}

/**
 * Records a run that claims no session (a webhook's, a sessionless start): its row and its first
 * event in one statement, as a turn's are. Idempotent: a repeated start stores nothing twice.
 */
export async function recordRunStart(db: Queryable, p: { run: TurnRun; sessionId: string | null; announcement: RunEvent; now: number }): Promise<void> {
  await db.query(
    `WITH start AS (SELECT $8::text AS id), ${runAndAnnouncement('start')}
     SELECT pg_notify($9, $1)`,
    [...runParams(p.run, p.announcement, p.now), p.sessionId, RUN_EVENTS_CHANNEL],
  );
}

/**
 * Claims an existing session for the run and records the turn. Returns the session's state, or
 * null when another run holds the session (then nothing was written).
 */
export async function recordTurnStart(
  db: Queryable,
  p: { sessionId: string; run: TurnRun; message: SessionMessage; announcement: RunEvent; now: number },
): Promise<{ state: SessionState } | null> {
  const now = stampNow(p.now);
  const result = await db.query<{ state: SessionState }>(
    `WITH claimed AS (
       UPDATE sessions
       SET active_run_id = $1, messages = messages || $9::jsonb, update_time = $5, update_date = $10
       WHERE id = $8 AND (active_run_id IS NULL OR active_run_id = $1)
       RETURNING id, state
     ), ${runAndAnnouncement('claimed')}
     SELECT state, pg_notify($11, $1) FROM claimed`,
    [...runParams(p.run, p.announcement, now.time), p.sessionId, jsonParam([p.message]), now.date, RUN_EVENTS_CHANNEL],
  );
  const row = result.rows[0];
  return row ? { state: row.state } : null;
}

/** Creates the session already claimed by the run, with the user message, and records the turn. */
export async function recordNewSessionTurn(
  db: Queryable,
  p: { session: NewSessionFields; run: TurnRun; message: SessionMessage; announcement: RunEvent; now: number },
): Promise<SessionRecord> {
  const now = stampNow(p.now);
  const s = p.session;
  const result = await db.query<SessionRecord>(
    `WITH created AS (
       INSERT INTO sessions (${SESSION_COLUMNS})
       VALUES ($8, $2, $3, $9, $10, $11, $12::jsonb, $13::jsonb, $1, $5, $5, $14, $14)
       RETURNING ${SESSION_COLUMNS}
     ), ${runAndAnnouncement('created')}
     SELECT ${SESSION_COLUMNS}, pg_notify($15, $1) FROM created`,
    [
      ...runParams(p.run, p.announcement, now.time),
      s.id,
      s.name,
      s.userId,
      s.source,
      jsonParam([...s.messages, p.message]),
      jsonParam(s.state),
      now.date,
      RUN_EVENTS_CHANNEL,
    ],
  );
  const { pg_notify: _, ...session } = result.rows[0] as SessionRecord & { pg_notify?: unknown };
  return session;
}
