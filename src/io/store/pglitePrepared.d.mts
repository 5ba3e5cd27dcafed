import type { PGlite, Results } from '@electric-sql/pglite';

/** Runs `sql` with `params` on `db` as a named prepared statement (see pglitePrepared.mjs). */
export function preparedQueries(db: PGlite, opts?: { maxStatements?: number }): (sql: string, params?: unknown[]) => Promise<Results>;
