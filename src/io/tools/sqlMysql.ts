/**
 * ExeSQL on MySQL and MariaDB (`mysql2`). One statement per query (`multipleStatements` off, so
 * the server never runs a second statement hidden in the text); read-only runs happen inside
 * `START TRANSACTION READ ONLY` (rolled back at the end) with the server's statement time limit
 * (`max_execution_time` on MySQL, `max_statement_time` on MariaDB) and a client-side timeout.
 * Rows past `max_records` are dropped as they arrive.
 */
import mysql, { type Connection } from 'mysql2';
import type { StatementResult } from './sqlFormat';
import { CLIENT_BACKSTOP_MS, executionFailed, runStatements, StatementTimeout, type SqlRunner } from './sqlRun';

// MySQL column types DECIMAL, FLOAT, DOUBLE, NEWDECIMAL: printed as floats, as RAGFlow's driver does.
const FLOAT_TYPES = new Set([0, 4, 5, 246]);
// MySQL's max_execution_time, MariaDB's max_statement_time, and the client-side backstop.
const TIMEOUT_CODES = new Set(['ER_QUERY_TIMEOUT', 'ER_STATEMENT_TIMEOUT', 'PROTOCOL_SEQUENCE_TIMEOUT']);
const TIMEOUT_ERRNOS = new Set([3024, 1969]);

interface Answer {
  columns: string[] | null;
  floatColumns: boolean[];
  rows: unknown[][];
  header: { affectedRows?: number } | null;
}

function run(conn: Connection, sql: string, maxRows: number, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const answer: Answer = { columns: null, floatColumns: [], rows: [], header: null };
    conn
      .query({ sql, rowsAsArray: true, timeout: timeoutMs })
      .on('fields', (fields: Array<{ name: string; columnType?: number; type?: number }> | undefined) => {
        // Statements without a result set (SET, START TRANSACTION) report no fields.
        if (!fields) return;
        answer.columns = fields.map((f) => f.name);
        answer.floatColumns = fields.map((f) => FLOAT_TYPES.has(f.columnType ?? f.type ?? -1));
      })
      .on('result', (row: unknown) => {
        if (answer.columns === null) answer.header = row as Answer['header'];
        else if (answer.rows.length < maxRows) answer.rows.push(row as unknown[]);
      })
      .on('error', reject)
      .on('end', () => resolve(answer));
  });
}

function toResult(a: Answer): StatementResult {
  if (a.columns) return { columns: a.columns, rows: a.rows, floatColumns: a.floatColumns };
  const n = a.header?.affectedRows ?? 0;
  return { message: `${n} row${n === 1 ? '' : 's'} affected` };
}

export const runMysql: SqlRunner = async (target, statements, opts) => {
  const conn = mysql.createConnection({
    host: target.address,
    port: target.port,
    user: target.username,
    password: target.password,
    database: target.database,
    connectTimeout: 10_000,
    multipleStatements: false,
    dateStrings: true,
    supportBigNumbers: true,
    decimalNumbers: true,
  });
  conn.on('error', () => {}); // a dropped connection fails the query in flight
  const timeout = opts.statementTimeoutMs;
  return runStatements(
    {
      connect: () => new Promise<void>((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve()))),
      async beginReadOnly() {
        // Whichever the server knows (MySQL: milliseconds, SELECT only; MariaDB: seconds).
        await run(conn, `SET SESSION max_execution_time = ${Math.round(timeout)}`, 0, timeout).catch(() => {});
        await run(conn, `SET SESSION max_statement_time = ${timeout / 1000}`, 0, timeout).catch(() => {});
        await run(conn, 'START TRANSACTION READ ONLY', 0, timeout);
      },
      async statement(s) {
        try {
          return toResult(await run(conn, s.text, opts.maxRecords, timeout + CLIENT_BACKSTOP_MS));
        } catch (err) {
          const e = err as { code?: unknown; errno?: unknown };
          if (TIMEOUT_CODES.has(String(e.code)) || TIMEOUT_ERRNOS.has(Number(e.errno))) throw new StatementTimeout();
          // A server error leaves the connection usable (MySQL does not abort the transaction).
          if ((err as { fatal?: unknown }).fatal) throw err;
          return executionFailed(s.text, err);
        }
      },
      rollback: async () => void (await run(conn, 'ROLLBACK', 0, timeout)),
      abort: () => conn.destroy(),
      close: async () => conn.destroy(),
    },
    target,
    statements,
    opts,
  );
};
