/**
 * RAGFlow's `POST /agents/test_db_connection` (what the editor's ExeSQL "test connection" calls):
 * the host goes through the same network guard as ExeSQL (a blocked or unresolvable host is code
 * 102 naming it, as RAGFlow's `assert_host_is_safe` refusal is), then `SELECT 1` runs read-only
 * on the database with the ExeSQL drivers. The database types ExeSQL runs here are postgres,
 * mysql and mariadb; RAGFlow's others (oceanbase, mssql, IBM DB2, trino) answer its generic error
 * (code 100) saying so. A failing connection is code 100 with the driver's message, as RAGFlow's
 * `server_error_response` answers.
 */
import { AppError } from '../../src/errors';
import { assertHostAllowed } from '../../src/io/net';
import { checkSql, type SqlDialect } from '../../src/io/tools/sqlGuard';
import { runMysql } from '../../src/io/tools/sqlMysql';
import { runPostgres } from '../../src/io/tools/sqlPostgres';

const RUNNERS = { postgres: runPostgres, mysql: runMysql, mariadb: runMysql } as const;
const TIMEOUT_MS = 10_000;

const failure = (message: string) => new AppError('BAD_REQUEST', message, { ragflowCode: 100 });

export async function testDbConnection(body: Record<string, unknown>): Promise<string> {
  const dbType = String(body.db_type ?? '');
  if (!(dbType in RUNNERS)) throw failure(`Unsupported database type: ${dbType} (this build connects to postgres, mysql and mariadb).`);
  const host = String(body.host ?? '');
  const port = Number(body.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw failure(`Invalid port: ${String(body.port)}`);
  let address: string;
  try {
    const pinned = await assertHostAllowed(host, port, { env: process.env, service: 'test_db_connection' });
    address = pinned.addresses[0]!.address;
  } catch (err) {
    throw new AppError('NOT_FOUND', err instanceof Error ? err.message : String(err));
  }
  const dialect = dbType as SqlDialect;
  const signal = AbortSignal.timeout(TIMEOUT_MS + 2_000);
  try {
    await RUNNERS[dialect](
      { host, address, port, database: String(body.database ?? ''), username: String(body.username ?? ''), password: String(body.password ?? '') },
      checkSql('SELECT 1', dialect, false),
      { readOnly: true, maxRecords: 1, statementTimeoutMs: TIMEOUT_MS, signal },
    );
  } catch (err) {
    throw failure(err instanceof Error ? err.message : String(err));
  }
  return 'Database Connection Successful!';
}
