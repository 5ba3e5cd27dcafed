// PGlite on a thread of its own, serving the Db of src/io/store/pgliteThread.ts over messages.
// Plain JavaScript: a worker thread does not inherit the parent's TypeScript loader.
import { Blob } from 'node:buffer';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { preparedQueries } from './pglitePrepared.mjs';

/** What a database error carries besides its message (repositories read `code`). */
const ERROR_FIELDS = ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'position', 'where'];
/** Thrown inside a transaction's callback to roll it back. */
const ROLLBACK = Symbol('rollback');

/** Open transactions by id: their query handle, how to end them, and their outcome. */
const transactions = new Map();
/** Listeners by id: how to stop them. */
const listeners = new Map();
let nextId = 1;

const opened = (async () => {
  if (workerData.dataDir) await mkdir(workerData.dataDir, { recursive: true });
  // An empty database starts from the template (a dumped, migrated data folder) when there is one.
  const empty = !workerData.dataDir || (await readdir(workerData.dataDir)).length === 0;
  const loadDataDir = workerData.template && empty ? new Blob([await readFile(workerData.template)]) : undefined;
  return PGlite.create(workerData.dataDir, { extensions: { vector }, ...(loadDataDir ? { loadDataDir } : {}) });
})();
// Reported to every request (the first is `open`); not an unhandled rejection meanwhile.
opened.catch(() => undefined);
/** Statements outside transactions, prepared once each (./pglitePrepared.mjs). */
const prepared = opened.then(preparedQueries);
prepared.catch(() => undefined);

function describe(err) {
  const out = { message: err instanceof Error ? err.message : String(err) };
  for (const f of ERROR_FIELDS) if (err && typeof err === 'object' && err[f] !== undefined) out[f] = err[f];
  return out;
}

async function begin(db) {
  const id = nextId++;
  let end;
  const ending = new Promise((resolve) => (end = resolve));
  let started;
  const ready = new Promise((resolve) => (started = resolve));
  const done = db
    .transaction(async (tx) => {
      transactions.set(id, { tx, end, done: null });
      started();
      if (await ending) throw ROLLBACK;
    })
    .catch((err) => {
      if (err !== ROLLBACK) throw err;
    })
    .finally(() => transactions.delete(id));
  await Promise.race([ready, done]);
  const entry = transactions.get(id);
  if (!entry) throw new Error('the transaction ended before it began');
  entry.done = done;
  return id;
}

async function handle(m) {
  const db = await opened;
  switch (m.op) {
    case 'open':
      return null;
    case 'query': {
      if (!m.tx) return (await (await prepared)(m.sql, m.params)).rows;
      const tx = transactions.get(m.tx)?.tx;
      if (!tx) throw new Error('the transaction has ended');
      return (await tx.query(m.sql, m.params)).rows;
    }
    case 'begin':
      return begin(db);
    case 'end': {
      const entry = transactions.get(m.tx);
      if (!entry) throw new Error('the transaction has ended');
      entry.end(m.rollback);
      await entry.done;
      return null;
    }
    case 'listen': {
      const id = nextId++;
      listeners.set(id, await db.listen(m.channel, (payload) => parentPort.postMessage({ op: 'notify', listener: id, payload })));
      return id;
    }
    case 'unlisten': {
      const stop = listeners.get(m.listener);
      listeners.delete(m.listener);
      if (stop) await stop();
      return null;
    }
    case 'close':
      if (!db.closed) await db.close();
      return null;
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}

parentPort.on('message', (m) => {
  handle(m).then(
    (value) => parentPort.postMessage({ id: m.id, ok: true, value }),
    (err) => parentPort.postMessage({ id: m.id, ok: false, error: describe(err) }),
  );
});
