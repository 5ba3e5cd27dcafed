/** What the ExeSQL drivers share: the connection they get, their options, and error mapping. */
import { AppError } from '../../src/errors';
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
