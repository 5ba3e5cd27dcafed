/** The `Db` contract on PGlite (embedded PostgreSQL in WASM), with pgvector available. */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { AppError } from '../../errors';
import type { Db, Queryable } from './contract';

/**
 * Opens PGlite persisted in `dataDir`, or in memory when none is given.
 * PGlite is a single connection and queues queries itself; while a transaction runs, queries
 * made outside it wait for it to end (so code inside `transaction` must use `tx`, never the Db).
 */
export async function createPgliteDb(dataDir?: string): Promise<Db> {
  let db: PGlite;
  try {
    if (dataDir) await mkdir(dataDir, { recursive: true });
    db = await PGlite.create(dataDir, { extensions: { vector } });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new AppError('STORE_UNAVAILABLE', `cannot open PGlite${dataDir ? ` in ${dataDir}` : ''}: ${message}`, { cause: message });
  }

  return {
    kind: 'pglite',

    async query<T>(sql: string, params?: unknown[]) {
      const result = await db.query<T>(sql, params);
      return { rows: result.rows };
    },

    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return db.transaction(async (pgTx) => {
        const tx: Queryable = {
          async query<R>(sql: string, params?: unknown[]) {
            const result = await pgTx.query<R>(sql, params);
            return { rows: result.rows };
          },
        };
        return fn(tx);
      });
    },

    listen(channel, onPayload) {
      return db.listen(channel, onPayload);
    },

    async notify(channel, payload) {
      await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },

    async close() {
      if (!db.closed) await db.close();
    },
  };
}
