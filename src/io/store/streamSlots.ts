/**
 * Stream slots fenced by attempt (migration 10). A streaming call writes its tokens at (run, seq);
 * when it is retried, the new attempt claims the slot and from then on the store refuses every
 * write of an older attempt. An attempt that is stalled rather than dead (its worker frozen past
 * the heartbeat timeout, or cut off from Temporal but not from the store) would otherwise keep
 * writing into the sub numbers the retry needs, and the log would hold text of neither attempt.
 *
 * The check and the write are one statement. The slot's row is taken with INSERT … ON CONFLICT
 * DO UPDATE, which locks it (also when its WHERE refuses): on PostgreSQL a claim waits for a write
 * in flight and the other way round, so once a claim returns, every older write either got in
 * before it (and is hidden by the retry's supersede) or is refused. PGlite runs one statement at
 * a time anyway.
 */
import type { Db } from './contract';
import { jsonParam } from './sql';

/** A token row as the statements here take it (events.ts builds them). */
export interface SlotRow {
  seq: number;
  sub: number;
  event: string;
  message_id: string;
  created_at: number;
  task_id: string;
  data: Record<string, unknown>;
  terminal: boolean;
}

/** The slot's row, written or kept only for the attempt that holds it ($1 run, then seq, attempt). */
function admitted(seq: string, attempt: string): string {
  return `slot AS (
    INSERT INTO run_stream_slots (run_id, seq, attempt) VALUES ($1, ${seq}, ${attempt})
    ON CONFLICT (run_id, seq) DO UPDATE SET attempt = EXCLUDED.attempt WHERE run_stream_slots.attempt = EXCLUDED.attempt
    RETURNING 1
  )`;
}

/** Up to this many rows travel as plain parameters (a token flush mostly; faster than unpacking JSON on PGlite). */
const VALUES_MAX = 8;

const TYPES = ['int', 'int', 'text', 'text', 'double precision', 'text', 'json', 'boolean'] as const;

/** As events.ts does for the JSON form: PostgreSQL refuses NUL in text. */
function text(value: string): string {
  return value.replaceAll('\u0000', '');
}

/** The rows as a FROM source `r`, their values appended to `params`. */
function source(rows: SlotRow[], params: unknown[]): string {
  const columns = 'r(seq, sub, event, message_id, created_at, task_id, data, terminal)';
  if (rows.length <= VALUES_MAX) {
    const tuples = rows.map((r) => {
      const values = [r.seq, r.sub, text(r.event), text(r.message_id), r.created_at, text(r.task_id), jsonParam(r.data), r.terminal];
      return `(${values.map((v, i) => `$${params.push(v)}::${TYPES[i]}`).join(', ')})`;
    });
    return `(VALUES ${tuples.join(', ')}) AS ${columns}`;
  }
  params.push(jsonParam(rows));
  return `json_to_recordset($${params.length}::json) AS r(seq int, sub int, event text, message_id text, created_at double precision,
                                        task_id text, data json, terminal boolean)`;
}

const COLUMNS = 'seq, sub, event, message_id, created_at, task_id, data, terminal';

/**
 * The fenced insert for an embedded store: answers the rows stored, in order, and one row with
 * seq -1 when the slot belongs to a newer attempt (nothing is then stored).
 */
export function fencedInsertReturning(runId: string, slot: { seq: number; attempt: number }, rows: SlotRow[]): [string, unknown[]] {
  const params: unknown[] = [runId, slot.seq, slot.attempt];
  const from = source(rows, params);
  const sql = `WITH ${admitted('$2::int', '$3::int')},
  stored AS (
    INSERT INTO run_events (run_id, ${COLUMNS}, attempt)
    SELECT $1, r.seq, r.sub, r.event, r.message_id, r.created_at, r.task_id, r.data, r.terminal, $3::int
    FROM ${from} WHERE EXISTS (SELECT 1 FROM slot) ORDER BY r.seq, r.sub
    ON CONFLICT (run_id, seq, sub) DO NOTHING
    RETURNING ${COLUMNS}
  )
  SELECT ${COLUMNS} FROM stored
  UNION ALL SELECT -1, -1, NULL, NULL, NULL, NULL, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM slot)`;
  return [sql, params];
}

/**
 * The fenced insert for PostgreSQL: readers are notified on `channel` by the same statement (as
 * events.ts does for every append); answers one row, `admitted` false when refused.
 */
export function fencedInsertNotifying(runId: string, slot: { seq: number; attempt: number }, rows: SlotRow[], channel: string): [string, unknown[]] {
  const params: unknown[] = [runId, slot.seq, slot.attempt, channel];
  const from = source(rows, params);
  const sql = `WITH ${admitted('$2::int', '$3::int')},
  inserted AS (
    INSERT INTO run_events (run_id, ${COLUMNS}, attempt)
    SELECT $1, r.seq, r.sub, r.event, r.message_id, r.created_at, r.task_id, r.data, r.terminal, $3::int
    FROM ${from} WHERE EXISTS (SELECT 1 FROM slot)
    ON CONFLICT (run_id, seq, sub) DO NOTHING
    RETURNING 1
  )
  SELECT pg_notify($4, $1), EXISTS (SELECT 1 FROM slot) AS admitted FROM (SELECT count(*) FROM inserted) AS done`;
  return [sql, params];
}

/** Claims the slot for `attempt` unless a newer attempt holds it; answers whether it did. */
export async function claimSlot(db: Db, runId: string, seq: number, attempt: number): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO run_stream_slots (run_id, seq, attempt) VALUES ($1, $2, $3)
     ON CONFLICT (run_id, seq) DO UPDATE SET attempt = EXCLUDED.attempt WHERE run_stream_slots.attempt <= EXCLUDED.attempt
     RETURNING attempt`,
    [runId, seq, attempt],
  );
  return result.rows.length > 0;
}

/**
 * Hides a slot's tokens for the attempt that holds it, and for no other: answers the count hidden.
 * The slot's row is locked first (FOR UPDATE waits for a claim in flight and reads the row it left),
 * so a retry that claimed, stalled, and comes back after a newer attempt claimed and began writing
 * hides nothing: before this, its late supersede hid the newer attempt's first tokens for good.
 */
export function fencedSupersede(runId: string, seq: number, attempt: number): [string, unknown[]] {
  const sql = `WITH slot AS (
      SELECT 1 FROM run_stream_slots WHERE run_id = $1 AND seq = $2 AND attempt = $3 FOR UPDATE
    ),
    hidden AS (
      UPDATE run_events SET superseded = true
      WHERE run_id = $1 AND seq = $2 AND sub > 0 AND NOT superseded AND EXISTS (SELECT 1 FROM slot)
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM hidden`;
  return [sql, [runId, seq, attempt]];
}
