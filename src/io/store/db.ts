/**
 * Opens the database behind the store: PostgreSQL when a URL is given, embedded PGlite otherwise.
 * Both speak the same SQL; repositories never look at which one they got.
 */
import { createPgDb } from './pgDb';
import { createPgliteThreadDb } from './pgliteThread';
import type { Db } from './contract';

export interface OpenDbOptions {
  /** PostgreSQL connection URL; when absent PGlite is used. */
  databaseUrl?: string;
  /** PGlite data directory; in memory when absent. Ignored with `databaseUrl`. */
  dataDir?: string;
  /** Where warnings go (missing pgvector, lost LISTEN connection...). Defaults to console.warn. */
  log?: (msg: string) => void;
  /** An empty PGlite database starts from this dumped data folder (OpenStoreOptions.pgliteTemplate). */
  pgliteTemplate?: string;
}

/** A Db plus what was found while opening it. */
export interface OpenedDb extends Db {
  /** Whether the pgvector extension could be enabled. */
  readonly hasVector: boolean;
}

/**
 * Opens a Db for either backend and tries to enable pgvector. A PostgreSQL server without
 * pgvector (or without the right to create it) is accepted with a warning: nothing needs it yet.
 * @throws AppError STORE_UNAVAILABLE when the database cannot be opened.
 */
export async function openDb(opts: OpenDbOptions): Promise<OpenedDb> {
  const log = opts.log ?? ((msg: string) => console.warn(msg));
  const db = opts.databaseUrl ? await createPgDb(opts.databaseUrl, log) : await createPgliteThreadDb(opts.dataDir, opts.pgliteTemplate);
  let hasVector = true;
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (err) {
    hasVector = false;
    log(`pgvector is not available, continuing without it: ${err instanceof Error ? err.message : String(err)}`);
  }
  return Object.assign(db, { hasVector });
}
