/**
 * ExeSQL on PostgreSQL (`pg`). Read-only runs happen inside `BEGIN READ ONLY` (rolled back at the
 * end) with a statement timeout; each statement is sent with the extended protocol, which the
 * server refuses to run as more than one statement, and under a savepoint so a failing one is
 * reported and the next still runs (RAGFlow's behaviour). SELECTs are read through a cursor, so
 * only `max_records` rows ever leave the server.
 */
import pg, { type QueryArrayConfig, type QueryArrayResult } from 'pg';
import type { SqlStatement } from './sqlGuard';
import type { StatementResult } from './sqlFormat';
import { CLIENT_BACKSTOP_MS, executionFailed, runStatements, StatementTimeout, type SqlRunner } from './sqlRun';

// Dates and timestamps as PostgreSQL prints them (no time-zone shifts); numerics and bigints as
// numbers when they fit, as RAGFlow's Decimal → float conversion does.
const TEXT_TYPES = new Set([1082, 1083, 1114, 1184, 1266]);
const NUMERIC = 1700;
const INT8 = 20;
const FLOAT_TYPES = new Set([700, 701, NUMERIC]);
const QUERY_CANCELED = '57014';

function typeParser(oid: number, format?: string): (text: string) => unknown {
  if (TEXT_TYPES.has(oid)) return (t) => t;
  if (oid === NUMERIC) return (t) => (Number.isFinite(Number(t)) ? Number(t) : t);
  if (oid === INT8) return (t) => (Number.isSafeInteger(Number(t)) ? Number(t) : t);
  return pg.types.getTypeParser(oid, (format ?? 'text') as 'text') as (text: string) => unknown;
}

type ExtendedQuery = QueryArrayConfig & { queryMode: 'extended' };

function query(client: pg.Client, text: string): Promise<QueryArrayResult> {
  const config: ExtendedQuery = { text, rowMode: 'array', queryMode: 'extended' };
  return client.query(config);
}

function toResult(r: QueryArrayResult, maxRecords: number): StatementResult {
  if (r.fields.length === 0) {
    const n = r.rowCount;
    return { message: n === null ? `${r.command}: done` : `${r.command}: ${n} row${n === 1 ? '' : 's'} affected` };
  }
  return { columns: r.fields.map((f) => f.name), rows: r.rows.slice(0, maxRecords), floatColumns: r.fields.map((f) => FLOAT_TYPES.has(f.dataTypeID)) };
}

async function runOne(client: pg.Client, s: SqlStatement, readOnly: boolean, maxRecords: number): Promise<StatementResult> {
  const cursor = s.kind === 'select';
  // Read-only: everything is in one READ ONLY transaction; a savepoint isolates each statement.
  // Writes: each statement commits on its own (a cursor needs a transaction block).
  const begin = readOnly ? 'SAVEPOINT exesql' : cursor ? 'BEGIN' : null;
  const end = readOnly ? 'RELEASE SAVEPOINT exesql' : cursor ? 'COMMIT' : null;
  const undo = readOnly ? 'ROLLBACK TO SAVEPOINT exesql' : cursor ? 'ROLLBACK' : null;
  try {
    if (begin) await query(client, begin);
    let r: QueryArrayResult;
    if (cursor) {
      await query(client, `DECLARE exesql_rows NO SCROLL CURSOR FOR ${s.text}`);
      r = await query(client, `FETCH FORWARD ${maxRecords} FROM exesql_rows`);
      await query(client, 'CLOSE exesql_rows');
    } else {
      r = await query(client, s.text);
    }
    if (end) await query(client, end);
    return toResult(r, maxRecords);
  } catch (err) {
    if (undo) await query(client, undo).catch(() => {});
    // 57014: canceled by statement_timeout; pg's own query_timeout (the backstop) has no code.
    const code = (err as { code?: unknown }).code;
    if (code === QUERY_CANCELED || (err instanceof Error && !code && err.message === 'Query read timeout')) throw new StatementTimeout();
    if (!code) throw err; // not a server error: the connection is gone
    return executionFailed(s.text, err);
  }
}

export const runPostgres: SqlRunner = async (target, statements, opts) => {
  const client = new pg.Client({
    host: target.address,
    port: target.port,
    user: target.username,
    password: target.password,
    database: target.database,
    connectionTimeoutMillis: 10_000,
    statement_timeout: opts.statementTimeoutMs,
    query_timeout: opts.statementTimeoutMs + CLIENT_BACKSTOP_MS,
    application_name: 'agent-canvas ExeSQL',
    types: { getTypeParser: typeParser as pg.CustomTypesConfig['getTypeParser'] },
  });
  client.on('error', () => {}); // a dropped connection fails the query in flight; nothing else to do
  return runStatements(
    {
      connect: async () => void (await client.connect()),
      beginReadOnly: async () => void (await query(client, 'BEGIN READ ONLY')),
      statement: (s) => runOne(client, s, opts.readOnly, opts.maxRecords),
      rollback: async () => void (await query(client, 'ROLLBACK')),
      abort: () => void client.end().catch(() => {}),
      close: () => client.end().catch(() => {}),
    },
    target,
    statements,
    opts,
  );
};
