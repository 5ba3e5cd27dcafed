/**
 * The `Db` contract on PGlite (embedded PostgreSQL in WASM) run on a worker thread of its own
 * (./pgliteWorker.mjs). PGlite executes every statement synchronously on the thread that owns it:
 * on the API's thread, a burst of 200 starts kept that thread busy ~60% of the time in PGlite, and
 * requests waited seconds between their connection and their parsed headers (bench/starts.ts).
 * On its own thread the statements still run one at a time, in the order they were asked, while
 * the API's thread parses requests, streams events and runs activities.
 *
 * PGlite is a single connection: while a transaction runs, statements made outside it wait for it
 * to end (so code inside `transaction` must use `tx`, never the Db).
 */
import { Worker } from 'node:worker_threads';
import { AppError } from '../../errors';
import type { Db, Queryable, QueryResult } from './contract';

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { message: string } & Record<string, unknown>;
}

interface Notification {
  op: 'notify';
  listener: number;
  payload: string;
}

type Request =
  | { op: 'open' | 'begin' | 'close' }
  | { op: 'query'; sql: string; params?: unknown[]; tx: number | null }
  | { op: 'end'; tx: number; rollback: boolean }
  | { op: 'listen'; channel: string }
  | { op: 'unlisten'; listener: number };

/** An error from the database thread, with the fields repositories read (`code`…). */
function rebuild(error: Reply['error']): Error {
  const { message, ...fields } = error ?? { message: 'the database thread failed' };
  return Object.assign(new Error(message), fields);
}

/**
 * Opens PGlite persisted in `dataDir`, or in memory when none is given, on a thread of its own;
 * an empty one starts from `template` (a dumped data folder) when given.
 * @throws AppError STORE_UNAVAILABLE when it cannot be opened.
 */
export async function createPgliteThreadDb(dataDir?: string, template?: string): Promise<Db> {
  // Plain JavaScript: none of the process's flags (its TypeScript loader, `--input-type`…) apply.
  const worker = new Worker(new URL('./pgliteWorker.mjs', import.meta.url), { workerData: { dataDir, template }, execArgv: [] });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  const listeners = new Map<number, (payload: string) => void>();
  let nextId = 1;
  let gone: Error | null = null;

  const failAll = (err: Error) => {
    gone ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (m: Reply | Notification) => {
    if ('op' in m) {
      listeners.get(m.listener)?.(m.payload);
      return;
    }
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if (m.ok) p?.resolve(m.value);
    else p?.reject(rebuild(m.error));
  });
  worker.on('error', (err) => failAll(err));
  worker.on('exit', (code) => failAll(new Error(`the database thread exited (code ${code})`)));
  // The thread keeps the process alive while a statement is on its way, and not otherwise (as
  // PGlite in the process did not): an idle store left open does not hold the process.
  worker.unref();

  const ask = <T>(request: Request): Promise<T> => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  };
  const query = async <T>(sql: string, params: unknown[] | undefined, tx: number | null): Promise<QueryResult<T>> => ({
    rows: await ask<T[]>({ op: 'query', sql, params, tx }),
  });

  try {
    await ask({ op: 'open' });
  } catch (err) {
    await worker.terminate();
    const message = err instanceof Error ? err.message : String(err);
    throw new AppError('STORE_UNAVAILABLE', `cannot open PGlite${dataDir ? ` in ${dataDir}` : ''}: ${message}`, { cause: message });
  }

  return {
    kind: 'pglite',

    query<T>(sql: string, params?: unknown[]) {
      return query<T>(sql, params, null);
    },

    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const tx = await ask<number>({ op: 'begin' });
      let result: T;
      try {
        result = await fn({ query: (sql, params) => query(sql, params, tx) });
      } catch (err) {
        await ask({ op: 'end', tx, rollback: true }).catch(() => undefined);
        throw err;
      }
      await ask({ op: 'end', tx, rollback: false });
      return result;
    },

    async listen(channel, onPayload) {
      const listener = await ask<number>({ op: 'listen', channel });
      listeners.set(listener, onPayload);
      return async () => {
        listeners.delete(listener);
        await ask({ op: 'unlisten', listener }).catch(() => undefined);
      };
    },

    async notify(channel, payload) {
      await query('SELECT pg_notify($1, $2)', [channel, payload], null);
    },

    async close() {
      if (gone) return;
      await ask({ op: 'close' }).catch(() => undefined);
      await worker.terminate();
    },
  };
}
