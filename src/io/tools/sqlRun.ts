/** What the ExeSQL drivers share: the connection they get, their options, and error mapping. */
import { AppError } from '../../errors';
import type { StatementResult } from './sqlFormat';
import type { SqlStatement } from './sqlGuard';

export interface SqlTarget {
  /** The host as configured (messages) and the address the guard checked (connections). */
  host: string;
  address: string;
  port: number;
  database: string;
  username: string;
  password: string;
}

export interface SqlRunOptions {
  readOnly: boolean;
  maxRecords: number;
  statementTimeoutMs: number;
  signal: AbortSignal;
}

export type SqlRunner = (target: SqlTarget, statements: SqlStatement[], opts: SqlRunOptions) => Promise<StatementResult[]>;

/** Thrown by a driver when the server (or the client backstop) stopped a statement for its time limit. */
export class StatementTimeout extends Error {
  constructor() {
    super('the statement ran past its time limit');
  }
}

/** How long the client waits past the server's own limit before giving up on the connection. */
export const CLIENT_BACKSTOP_MS = 1_000;

function limitText(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The error for statement `index` (0-based) stopped at its limit: which one, and which limit. */
export function statementTimedOut(index: number, s: SqlStatement, limitMs: number): AppError {
  const text = s.text.length > 200 ? `${s.text.slice(0, 200)}…` : s.text;
  return new AppError(
    'TOOL_BAD_REQUEST',
    `ExeSQL: statement ${index + 1} ran past the ${limitText(limitMs)} limit (raise the component's timeout or make the query cheaper): ${text}`,
    { limitMs, statement: index + 1 },
  );
}

/** RAGFlow's report of a failed statement: the run goes on with the next one. */
export function executionFailed(sql: string, err: unknown): StatementResult {
  return { message: `SQL Execution Failed: ${sql}\n${err instanceof Error ? err.message : String(err)}` };
}

const AUTH_CODES = new Set(['28P01', '28000', 'ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE']);
const MISSING_DB_CODES = new Set(['3D000', 'ER_BAD_DB_ERROR']);

/** A failure to connect (or a lost connection) on the error registry: bad credentials and unknown databases are not retried. */
export function connectionError(err: unknown, target: SqlTarget): AppError {
  if (err instanceof AppError) return err;
  const code = String((err as { code?: unknown }).code ?? '');
  const message = err instanceof Error ? err.message : String(err);
  const where = `${target.host}:${target.port}/${target.database}`;
  if (AUTH_CODES.has(code)) return new AppError('TOOL_AUTH', `ExeSQL: ${where} refused user ${target.username}: ${message}`);
  if (MISSING_DB_CODES.has(code)) return new AppError('TOOL_BAD_REQUEST', `ExeSQL: ${where}: ${message}`);
  return new AppError('TOOL_UNAVAILABLE', `ExeSQL: database connection to ${where} failed: ${message}`);
}

/** A driver's connection for one ExeSQL run; `runStatements` holds what every driver shares. */
export interface SqlSession {
  connect(): Promise<void>;
  /** Opens the READ ONLY transaction (and sets the server's time limit where that is a session setting). */
  beginReadOnly(): Promise<void>;
  /** Runs one statement; a server error comes back as a result, a lost connection throws. */
  statement(s: SqlStatement): Promise<StatementResult>;
  rollback(): Promise<void>;
  /** Drops the connection at once (cancellation). */
  abort(): void;
  close(): Promise<void>;
}

/** Connects, runs the statements in order (read-only ones in a transaction rolled back at the end), maps failures, and always closes. */
export async function runStatements(session: SqlSession, target: SqlTarget, statements: SqlStatement[], opts: SqlRunOptions): Promise<StatementResult[]> {
  const abort = () => session.abort();
  opts.signal.addEventListener('abort', abort, { once: true });
  try {
    await session.connect();
    if (opts.readOnly) await session.beginReadOnly();
    const results: StatementResult[] = [];
    for (const [i, s] of statements.entries()) {
      if (opts.signal.aborted) throw opts.signal.reason;
      try {
        results.push(await session.statement(s));
      } catch (err) {
        if (err instanceof StatementTimeout) throw statementTimedOut(i, s, opts.statementTimeoutMs);
        throw err;
      }
    }
    if (opts.readOnly) await session.rollback();
    return results;
  } catch (err) {
    if (opts.signal.aborted) throw opts.signal.reason ?? err;
    throw connectionError(err, target);
  } finally {
    opts.signal.removeEventListener('abort', abort);
    await session.close();
  }
}
