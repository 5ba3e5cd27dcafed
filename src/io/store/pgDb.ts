/** The `Db` contract on PostgreSQL through a `pg.Pool`. */
import pg from 'pg';
import { AppError } from '../../errors';
import { redactUrl, toStoreError } from './dbErrors';
import { PgListener } from './pgListener';
import type { Db, Queryable, QueryResult } from './contract';

const INT8_OID = 20;

/**
 * Parses int8 (counts, sums) as JS numbers for this pool only, leaving the process-wide pg
 * defaults alone. Our values (row counts, ms timestamps) stay far below 2^53.
 */
const poolTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

async function runQuery<T>(target: pg.Pool | pg.PoolClient, sql: string, params?: unknown[]): Promise<QueryResult<T>> {
  try {
    const result = await target.query(sql, params);
    return { rows: result.rows as T[] };
  } catch (err) {
    throw toStoreError(err);
  }
}

/**
 * Connects a pool to `databaseUrl` and checks that the server answers.
 * @throws AppError STORE_UNAVAILABLE when the server cannot be reached.
 */
export async function createPgDb(databaseUrl: string, log: (msg: string) => void): Promise<Db> {
  const config: pg.PoolConfig = { connectionString: databaseUrl, types: poolTypes, application_name: 'agent-canvas' };
  const pool = new pg.Pool(config);
  // Without a handler an idle client losing its connection would crash the process.
  pool.on('error', (err) => log(`PostgreSQL pool: idle connection failed: ${err.message}`));
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    const message = err instanceof Error ? err.message : String(err);
    throw new AppError('STORE_UNAVAILABLE', `cannot connect to PostgreSQL at ${redactUrl(databaseUrl)}: ${message}`, { cause: message });
  }
  const listener = new PgListener(config, log);

  return {
    kind: 'postgres',

    query<T>(sql: string, params?: unknown[]) {
      return runQuery<T>(pool, sql, params);
    },

    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw toStoreError(err);
      }
      let discardClient = false;
      try {
        await runQuery(client, 'BEGIN');
        const tx: Queryable = { query: (sql, params) => runQuery(client, sql, params) };
        const result = await fn(tx);
        await runQuery(client, 'COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          // The connection is unusable: drop it from the pool; the original error is what matters.
          discardClient = true;
        }
        throw err;
      } finally {
        client.release(discardClient);
      }
    },

    listen(channel, onPayload) {
      return listener.listen(channel, onPayload);
    },

    async notify(channel, payload) {
      await runQuery(pool, 'SELECT pg_notify($1, $2)', [channel, payload]);
    },

    async close() {
      await listener.close();
      await pool.end();
    },
  };
}
