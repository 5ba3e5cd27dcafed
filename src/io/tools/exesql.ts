/**
 * The ExeSQL executor: checks the SQL (read-only unless `allow_writes`, see sqlGuard.ts) before
 * anything connects, passes the database host through the network guard, connects to the checked
 * address, runs each statement and formats the results as RAGFlow does (sqlFormat.ts).
 */
import { Context } from '@temporalio/activity';
import { EXESQL_RUNNABLE_DB_TYPES, exeSqlParamsSchema } from '../../core/components/ExeSQL';
import { AppError } from '../../errors';
import { assertHostAllowed, type Resolver } from '../net';
import { formatResults } from './sqlFormat';
import { checkSql, type SqlDialect } from './sqlGuard';
import { runMysql } from './sqlMysql';
import { runPostgres } from './sqlPostgres';
import type { SqlRunner } from './sqlRun';
import type { ToolExecutor } from './executor';

const RUNNERS: Record<SqlDialect, SqlRunner> = { postgres: runPostgres, mysql: runMysql, mariadb: runMysql };
/** Outputs travel in workflow history (2 MB payload limit): a larger result is refused, not cut. */
const MAX_RESULT_CHARS = 1_500_000;
/** Per statement, when the component has no `timeout` of its own. */
const DEFAULT_STATEMENT_TIMEOUT_S = 60;
/** Kept between a statement's limit and the activity's, so the clearer statement error wins. */
const ACTIVITY_MARGIN_MS = 3_000;

/**
 * A statement's time limit: the component's `timeout` (else 60 s), but always below the time the
 * activity running it has, or Temporal's "activity timeout" would hide which statement was slow.
 */
export function statementLimitMs(timeoutS: number | null | undefined, activityTimeoutMs: number | undefined): number {
  const wanted = (timeoutS ?? DEFAULT_STATEMENT_TIMEOUT_S) * 1000;
  if (!activityTimeoutMs) return wanted;
  return Math.max(500, Math.min(wanted, activityTimeoutMs - ACTIVITY_MARGIN_MS));
}

/** The running activity's start-to-close timeout; undefined outside an activity (tests). */
function activityTimeoutMs(): number | undefined {
  try {
    return Context.current().info.startToCloseTimeoutMs;
  } catch {
    return undefined;
  }
}

function isRunnable(dbType: string): dbType is SqlDialect {
  return (EXESQL_RUNNABLE_DB_TYPES as readonly string[]).includes(dbType);
}

/** The executor; `resolver` replaces DNS (tests). */
export function createExeSqlExecutor(deps: { resolver?: Resolver } = {}): ToolExecutor {
  return async ({ params, args, env, signal }) => {
    const parsed = exeSqlParamsSchema.safeParse(params);
    if (!parsed.success) throw new AppError('COMPONENT_PARAMS', `ExeSQL: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const p = parsed.data;
    const sql = typeof args.sql === 'string' ? args.sql : args.sql == null ? '' : JSON.stringify(args.sql);
    if (!sql.trim()) throw new AppError('TOOL_BAD_REQUEST', 'SQL for `ExeSQL` MUST not be empty.');
    if (!isRunnable(p.db_type)) {
      throw new AppError('COMPONENT_UNSUPPORTED', `ExeSQL: db_type ${p.db_type} cannot run in this build (supported: ${EXESQL_RUNNABLE_DB_TYPES.join(', ')})`);
    }
    const missing = (['host', 'database', 'username'] as const).filter((k) => !p[k].trim());
    if (missing.length > 0) throw new AppError('TOOL_BAD_REQUEST', `ExeSQL: ${missing.join(', ')} must be set on the component`);

    // The SQL is judged before any connection is made: refused SQL never reaches the database.
    const statements = checkSql(sql, p.db_type, p.allow_writes);
    if (statements.length === 0) throw new AppError('TOOL_BAD_REQUEST', 'ExeSQL: the SQL holds no statement');
    const pinned = await assertHostAllowed(p.host, p.port, { env, service: 'ExeSQL', resolver: deps.resolver });
    const results = await RUNNERS[p.db_type](
      { host: p.host, address: pinned.addresses[0]!.address, port: p.port, database: p.database, username: p.username, password: p.password },
      statements,
      { readOnly: !p.allow_writes, maxRecords: p.max_records, statementTimeoutMs: statementLimitMs(p.timeout, activityTimeoutMs()), signal },
    );
    const out = formatResults(results);
    const size = out.formalized_content.length + JSON.stringify(out.json).length;
    if (size > MAX_RESULT_CHARS)
      throw new AppError(
        'TOOL_BAD_REQUEST',
        `ExeSQL: the result is ${size} characters, more than the ${MAX_RESULT_CHARS} a node result may hold; lower max_records or select fewer columns`,
      );
    return { text: out.formalized_content, outputs: { formalized_content: out.formalized_content, json: out.json } };
  };
}

export const exeSqlTool: ToolExecutor = createExeSqlExecutor();
