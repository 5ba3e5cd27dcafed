/**
 * The event log of runs, ordered by (seq, sub), and the wake-ups of its readers.
 * Appends are idempotent so that retried activities can write the same events again.
 */
import { isTerminalEvent, type RunEvent, type RunEventName } from '../../core/engine/runEvents';
import { timeEventAppend } from '../metrics/registry';
import { jsonParam } from './sql';
import { dispatcherFor, RUN_EVENTS_CHANNEL } from './eventDispatch';
import type { Db, Store, StoredEvent } from './contract';
import { AppError } from '../../errors';
import { claimSlot, fencedInsertNotifying, fencedInsertReturning, fencedSupersede, type SlotRow } from './streamSlots';

/** A stream slot and the attempt writing to it. */
type StreamSlot = { seq: number; attempt: number };

/** Rows per INSERT: keeps statements bounded when a long stream is flushed at once. */
const APPEND_CHUNK = 500;

/** A row of run_events as the statements here and in streamSlots.ts take it. */
type EventRow = SlotRow;

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    seq: row.seq,
    sub: row.sub,
    event: row.event as RunEventName,
    message_id: row.message_id,
    created_at: row.created_at,
    task_id: row.task_id,
    data: row.data,
    terminal: row.terminal,
    // A row is the event it was written as: appends take only events typed by the event map.
  } as StoredEvent;
}

/** A chunk of events into the log, the chunk as one JSON parameter ($1 the run, $2 the rows). */
const INSERT_FROM_JSON = `INSERT INTO run_events (run_id, seq, sub, event, message_id, created_at, task_id, data, terminal)
  SELECT $1, r.seq, r.sub, r.event, r.message_id, r.created_at, r.task_id, r.data, r.terminal
  FROM json_to_recordset($2::json) AS r(seq int, sub int, event text, message_id text, created_at double precision,
                                        task_id text, data json, terminal boolean)`;

/** What an insert answers: the rows it stored (a retried append stores none twice). */
const STORED = `ON CONFLICT (run_id, seq, sub) DO NOTHING
  RETURNING seq, sub, event, message_id, created_at, task_id, data, terminal`;

/** Inserts a chunk of events, answering the rows it stored, in order. */
const INSERT_RETURNING = `${INSERT_FROM_JSON} ORDER BY r.seq, r.sub ${STORED}`;

/** Up to this many events are inserted with plain parameters (about twice as fast as unpacking JSON on PGlite). */
const VALUES_MAX = 8;

/** As jsonParam does for the JSON form: PostgreSQL refuses NUL in text. */
function text(value: unknown): unknown {
  return typeof value === 'string' ? value.replaceAll('\u0000', '') : value;
}

/** The INSERT … VALUES of a few events, answering the rows it stored, and its parameters. */
function insertValues(runId: string, rows: EventRow[]): [string, unknown[]] {
  const params: unknown[] = [runId];
  const tuples = rows.map((r) => {
    const at = params.length;
    params.push(r.seq, r.sub, text(r.event), text(r.message_id), r.created_at, text(r.task_id), jsonParam(r.data), r.terminal);
    return `($1, ${Array.from({ length: 8 }, (_, i) => `$${at + i + 1}`).join(', ')})`;
  });
  return [`INSERT INTO run_events (run_id, seq, sub, event, message_id, created_at, task_id, data, terminal) VALUES ${tuples.join(', ')} ${STORED}`, params];
}

/**
 * Writes that ride along with an append as CTEs before its INSERT, so that they and the events are
 * one statement, all or nothing (a run's end, runEnds.ts). Given a function that adds a parameter
 * and answers its placeholder, answers the CTEs (`name AS (…), …`).
 */
export type AlongWrites = (param: (value: unknown) => string) => string;

/** `sql` with `along`'s CTEs before it, their parameters added to `params`. */
function withAlong(along: AlongWrites | undefined, sql: string, params: unknown[], joiner = ' '): string {
  if (!along) return sql;
  const ctes = along((value) => `$${params.push(value)}`);
  return `WITH ${ctes}${joiner}${sql}`;
}

/** The events repository over `db`; `appendAlong` is for the store's own statements (runs.finish). */
export function eventsRepository(db: Db): Store['events'] & { appendAlong(runId: string, events: RunEvent[], along: AlongWrites): Promise<void> } {
  /** Each run's last append in this process: the next waits for it (see `append`). */
  const tails = new Map<string, Promise<void>>();
  const insertChunk = async (runId: string, events: RunEvent[], along: AlongWrites | undefined, slot?: StreamSlot): Promise<void> => {
    const rows = events.map((e: RunEvent) => ({
      seq: e.seq,
      sub: e.sub,
      event: e.event,
      message_id: e.message_id,
      created_at: e.created_at,
      task_id: e.task_id,
      data: e.data ?? {},
      terminal: isTerminalEvent(e.event),
    }));
    if (rows.length === 0) {
      const params: unknown[] = [];
      if (along) await db.query(withAlong(along, 'SELECT 1', params), params);
      return;
    }
    if (slot) return insertFenced(runId, rows, slot);
    // PGlite: every reader is in this process, so the rows inserted go to them directly and
    // they need not read them back (one statement per token flush instead of one per reader).
    if (db.kind === 'pglite') {
      const [sql, params] = rows.length <= VALUES_MAX ? insertValues(runId, rows) : [INSERT_RETURNING, [runId, jsonParam(rows)]];
      const inserted = await timeEventAppend(() => db.query<EventRow>(withAlong(along, sql, params), params));
      const stored = inserted.rows.map(toStoredEvent).sort((a, b) => a.seq - b.seq || a.sub - b.sub);
      dispatcherFor(db).dispatch(runId, stored);
      return;
    }
    // The whole chunk travels as one JSON parameter, and readers are notified by the same
    // statement: one round trip. The notification goes out even when a retry inserted
    // nothing: the first attempt may have died before it was delivered. On PostgreSQL it is
    // delivered on commit.
    const params = [runId, jsonParam(rows), RUN_EVENTS_CHANNEL];
    const sql = `inserted AS (${INSERT_FROM_JSON} ON CONFLICT (run_id, seq, sub) DO NOTHING RETURNING 1)
       SELECT pg_notify($3, $1) FROM (SELECT count(*) FROM inserted) AS done`;
    await timeEventAppend(() => db.query(along ? withAlong(along, sql, params, ', ') : `WITH ${sql}`, params));
  };
  /** A stream slot's events, stored only while `slot.attempt` holds the slot (streamSlots.ts). */
  const insertFenced = async (runId: string, rows: EventRow[], slot: StreamSlot): Promise<void> => {
    let refused: boolean;
    if (db.kind === 'pglite') {
      const [sql, params] = fencedInsertReturning(runId, slot, rows);
      const result = await timeEventAppend(() => db.query<EventRow>(sql, params));
      refused = result.rows.some((r) => r.seq === -1);
      const stored = result.rows.filter((r) => r.seq !== -1).map(toStoredEvent);
      dispatcherFor(db).dispatch(
        runId,
        stored.sort((a, b) => a.seq - b.seq || a.sub - b.sub),
      );
    } else {
      const [sql, params] = fencedInsertNotifying(runId, slot, rows, RUN_EVENTS_CHANNEL);
      const result = await timeEventAppend(() => db.query<{ admitted: boolean }>(sql, params));
      refused = result.rows[0]?.admitted !== true;
    }
    if (refused)
      throw new AppError(
        'STREAM_SUPERSEDED',
        `attempt ${slot.attempt} may no longer write to stream slot ${slot.seq} of run ${runId}: a newer attempt holds it`,
        {
          runId,
          seq: slot.seq,
          attempt: slot.attempt,
        },
      );
  };
  /** The events in chunks; `along` rides with the last (it holds the closing events). */
  const insert = async (runId: string, events: RunEvent[], along?: AlongWrites, slot?: StreamSlot): Promise<void> => {
    for (let start = 0; start < events.length || (start === 0 && along !== undefined); start += APPEND_CHUNK) {
      const last = start + APPEND_CHUNK >= events.length;
      await insertChunk(runId, events.slice(start, start + APPEND_CHUNK), last ? along : undefined, slot);
    }
  };
  /**
   * Appends of one run made in this process are stored in the order they were asked for, even
   * when made at once (a call writes its step's events while its model call starts, then
   * tokens): on PostgreSQL two connections could commit them the other way round, and a reader
   * past the later one would never see the earlier.
   */
  const ordered = (runId: string, events: RunEvent[], along?: AlongWrites, slot?: StreamSlot): Promise<void> => {
    if (events.length === 0 && !along) return Promise.resolve();
    const before = tails.get(runId);
    const mine = before ? before.then(() => insert(runId, events, along, slot)) : insert(runId, events, along, slot);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    tails.set(runId, tail);
    void tail.then(() => {
      if (tails.get(runId) === tail) tails.delete(runId);
    });
    return mine;
  };

  return {
    append: (runId, events) => ordered(runId, events),
    appendAlong: (runId, events, along) => ordered(runId, events, along),
    appendStream: (runId, slot, events) => ordered(runId, events, undefined, slot),
    claimSlot: (runId, seq, attempt) => claimSlot(db, runId, seq, attempt),

    async listByMessage(tenantId, canvasId, messageId, event) {
      const result = await db.query<EventRow>(
        `SELECT e.seq, e.sub, e.event, e.message_id, e.created_at, e.task_id, e.data, e.terminal
         FROM run_events e JOIN runs r ON r.id = e.run_id
         WHERE r.tenant_id = $1 AND r.canvas_id = $2 AND e.message_id = $3 AND e.event = $4 AND NOT e.superseded
         ORDER BY e.seq, e.sub`,
        [tenantId, canvasId, messageId, event],
      );
      return result.rows.map(toStoredEvent);
    },

    async list(runId, after, limit) {
      // seq and sub are never negative, so (-1, -1) is before everything.
      const cursor = after ?? { seq: -1, sub: -1 };
      const result = await db.query<EventRow>(
        `SELECT seq, sub, event, message_id, created_at, task_id, data, terminal FROM run_events
         WHERE run_id = $1 AND (seq, sub) > ($2, $3) AND NOT superseded
         ORDER BY seq, sub
         LIMIT $4`,
        [runId, cursor.seq, cursor.sub, Math.max(0, Math.floor(limit))],
      );
      return result.rows.map(toStoredEvent);
    },

    async supersede(runId, seq, attempt) {
      if (attempt !== undefined) {
        const [sql, params] = fencedSupersede(runId, seq, attempt);
        return (await db.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0;
      }
      const result = await db.query<{ n: number }>(
        `WITH hidden AS (
           UPDATE run_events SET superseded = true
           WHERE run_id = $1 AND seq = $2 AND sub > 0 AND NOT superseded
           RETURNING 1
         )
         SELECT count(*)::int AS n FROM hidden`,
        [runId, seq],
      );
      return result.rows[0]?.n ?? 0;
    },

    async lastNamed(runId, event) {
      const result = await db.query<EventRow>(
        `SELECT seq, sub, event, message_id, created_at, task_id, data, terminal FROM run_events
         WHERE run_id = $1 AND event = $2 AND NOT superseded ORDER BY seq DESC, sub DESC LIMIT 1`,
        [runId, event],
      );
      return result.rows[0] ? toStoredEvent(result.rows[0]) : null;
    },

    async lastSub(runId, seq) {
      // Superseded rows count: a new attempt must write above them, not over them.
      const result = await db.query<{ n: number }>('SELECT coalesce(max(sub), 0)::int AS n FROM run_events WHERE run_id = $1 AND seq = $2', [runId, seq]);
      return result.rows[0]?.n ?? 0;
    },

    async slotUpTo(runId, cursor) {
      const result = await db.query<EventRow>(
        `SELECT seq, sub, event, message_id, created_at, task_id, data, terminal FROM run_events
         WHERE run_id = $1 AND seq = $2 AND sub > 0 AND sub <= $3 AND event IN ('message', 'message_retry')
         ORDER BY sub`,
        [runId, cursor.seq, cursor.sub],
      );
      return result.rows.map(toStoredEvent);
    },

    async hasTerminal(runId) {
      const result = await db.query<{ found: boolean }>('SELECT EXISTS (SELECT 1 FROM run_events WHERE run_id = $1 AND terminal AND NOT superseded) AS found', [
        runId,
      ]);
      return result.rows[0]?.found === true;
    },

    subscribe(runId, onNew) {
      return dispatcherFor(db).subscribe(runId, onNew);
    },
  };
}
