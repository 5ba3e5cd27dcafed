/** ExeSQL: runs SQL against a database. Params follow RAGFlow's ExeSQLParam. */
import { z } from 'zod';
import { executionParamsShape, notRunnableYet, num, str } from './common';
import type { ComponentDef } from './types';

const DB_TYPES = ['mysql', 'postgres', 'mariadb', 'mssql', 'IBM DB2', 'trino', 'oceanbase'] as const;

// Connection fields may be empty when the canvas is saved (templates ship them blank); they
// are checked when the node runs.
const ExeSQLParams = z
  .looseObject({
    ...executionParamsShape,
    sql: str('{sys.query}'),
    db_type: z.preprocess((v) => (v == null || v === '' ? 'mysql' : v), z.enum(DB_TYPES, { message: `db_type must be one of: ${DB_TYPES.join(', ')}` })),
    database: str(''),
    username: str(''),
    host: str(''),
    port: num(3306).refine((n) => Number.isInteger(n) && n > 0, 'port must be a positive integer'),
    password: str(''),
    max_records: num(1024).refine((n) => Number.isInteger(n) && n > 0, 'max_records must be a positive integer'),
  });

export type ExeSQLParams = z.infer<typeof ExeSQLParams>;

export const ExeSQL: ComponentDef<ExeSQLParams> = {
  name: 'ExeSQL',
  params: ExeSQLParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  thoughts: () => 'Running the SQL query...',
  run: () => notRunnableYet('ExeSQL'),
};
