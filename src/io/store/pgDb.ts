/**
 * The `Db` contract on PostgreSQL through a `pg.Pool`. The pool outlives a server restart: a
 * connection the server dropped fails its query (STORE_UNAVAILABLE) and leaves the pool, the next
 * query opens a new one. Inside a Temporal activity a query waits for the server to come back
 * instead (see `waitOutOutage`); an API request fails at once, so the client gets its 503.
 */
import { Context } from '@temporalio/activity';
import pg from 'pg';
import { AppError, isAppError } from '../../errors';
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

/** Longest an activity's query waits for PostgreSQL; the attempt's own start-to-close timeout bounds it too. */
const ACTIVITY_OUTAGE_WAIT_MS = 120_000;
const OUTAGE_BACKOFF_MS = [200, 500, 1000, 2000, 5000];

function activityContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null; // not inside an activity (an API request, a boot step)
  }
}

/**
 * Runs `attempt`; when it fails with STORE_UNAVAILABLE inside an activity, waits (heartbeating,
 * with backoff) and tries again until the server answers, the activity is cancelled, or its time
 * runs out. Why here and not in Temporal's retry: a model call's attempts are RAGFlow's
 * `max_retries` (0 by default), so a store outage of a few seconds would fail the node; and a
 * retried model call is paid for again. The statements retried are the activity's own, which are
 * idempotent since Temporal may run any activity twice. Outside an activity it fails at once.
 */
async function waitOutOutage<T>(attempt: () => Promise<T>, log: (msg: string) => void): Promise<T> {
  const started = Date.now();
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (err) {
      const ctx = isAppError(err, 'STORE_UNAVAILABLE') ? activityContext() : null;
      if (!ctx || ctx.cancellationSignal.aborted) throw err;
      const { info } = ctx;
      const attemptEnds = (info.currentAttemptScheduledTimestampMs ?? started) + (info.startToCloseTimeoutMs ?? ACTIVITY_OUTAGE_WAIT_MS) - 1_000;
      const delay = OUTAGE_BACKOFF_MS[Math.min(retry, OUTAGE_BACKOFF_MS.length - 1)]!;
      if (Date.now() + delay > Math.min(started + ACTIVITY_OUTAGE_WAIT_MS, attemptEnds)) throw err;
      if (retry === 0)
        log(
          `PostgreSQL unavailable in activity ${info.activityType} (${info.workflowExecution?.workflowId ?? 'no workflow'}); waiting for it (${String((err as AppError).details.cause ?? '')})`,
        );
      // A remote activity's heartbeat timeout must not mistake the wait for a dead worker.
      if (!info.isLocal) ctx.heartbeat();
      await ctx.sleep(delay).catch(() => undefined);
      if (ctx.cancellationSignal.aborted) throw err;
    }
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
      return waitOutOutage(() => runQuery<T>(pool, sql, params), log);
    },

    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      // Only getting a connection is waited out: a transaction that broke midway is the caller's to retry.
      const client = await waitOutOutage(async () => {
        try {
          return await pool.connect();
        } catch (err) {
          throw toStoreError(err);
        }
      }, log);
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
      await waitOutOutage(() => runQuery(pool, 'SELECT pg_notify($1, $2)', [channel, payload]), log);
    },

    async close() {
      await listener.close();
      await pool.end();
    },
  };
}
