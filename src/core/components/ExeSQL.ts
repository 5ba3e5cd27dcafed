/**
 * ExeSQL: runs SQL against a database, as a canvas node (SQL from its `sql` param, usually an
 * upstream model's answer) or as an Agent tool (`execute_sql`, SQL from the model). Params follow
 * RAGFlow's ExeSQLParam, plus `allow_writes` (ours, default false): without it only SQL that is
 * parsed and found to read runs, inside a read-only transaction. The database host passes the
 * network guard like any tool connection. PostgreSQL, MySQL and MariaDB run in this build.
 */
import { z } from 'zod';
import { parseRef, type VariableRef } from '../dsl/refs';
import { bool, executionParamsShape, num, paramText, str, templateRefs, uniqueRefs } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const DB_TYPES = ['mysql', 'postgres', 'mariadb', 'mssql', 'IBM DB2', 'trino', 'oceanbase'] as const;

/** The db_types this build can connect to. */
export const EXESQL_RUNNABLE_DB_TYPES = ['postgres', 'mysql', 'mariadb'] as const;

// Connection fields may be empty when the canvas is saved (templates ship them blank); they
// are checked when the node runs.
const ExeSQLParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    sql: str('{sys.query}'),
    db_type: z.preprocess((v) => (v == null || v === '' ? 'mysql' : v), z.enum(DB_TYPES, { message: `db_type must be one of: ${DB_TYPES.join(', ')}` })),
    database: str(''),
    username: str(''),
    host: str(''),
    port: num(3306).refine((n) => Number.isInteger(n) && n > 0, 'port must be a positive integer'),
    password: str(''),
    max_records: num(1024).refine((n) => Number.isInteger(n) && n > 0, 'max_records must be a positive integer'),
    /** Ours: let INSERT/UPDATE/DELETE/DDL run. Off by default: read-only. */
    allow_writes: bool(false),
  }),
);

export type ExeSQLParams = z.infer<typeof ExeSQLParams>;
export const exeSqlParamsSchema = ExeSQLParams;

function sqlRefs(sql: string): VariableRef[] {
  const bare = sql.includes('{') ? null : parseRef(sql);
  return uniqueRefs([...templateRefs(sql), ...(bare ? [bare] : [])]);
}

export const ExeSQL: ComponentDef<ExeSQLParams> = {
  name: 'ExeSQL',
  params: ExeSQLParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: (p) => sqlRefs(p.sql),
  tool: {
    meta: (p) => ({
      name: 'execute_sql',
      description: p.allow_writes
        ? 'This is a tool that can execute SQL.'
        : 'This is a tool that can execute SQL. The database is read-only: only SELECT (also SHOW, DESCRIBE, EXPLAIN) statements run.',
      parameters: { sql: { type: 'string', description: 'The SQL needs to be executed.', default: '{sys.query}', required: true } },
    }),
  },
  thoughts: () => 'Query sent—waiting for the data.',
  run: (p, ctx) => runToolNode('ExeSQL', ctx, { sql: paramText(ctx, p.sql) }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
