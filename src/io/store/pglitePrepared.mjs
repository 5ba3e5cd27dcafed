// Statements outside transactions, run on PGlite as named prepared statements in one protocol
// exchange each. PGlite's own `query` parses and plans every statement anew and enters the WASM
// backend six times (parse, describe, bind, describe, execute, sync): a run's start (one CTE)
// took ~3.3 ms that way against ~1.7 ms prepared (scratch bench on the store's thread). Here a
// statement's text is parsed and described once (its parameter types and row shape kept), and
// each use is one exchange: bind, execute, sync. Plain JavaScript, for the worker thread.
import { parse, protocol } from '@electric-sql/pglite';

const { serialize } = protocol;

/** Statements kept prepared; the least recently used is closed past this many. */
const MAX_STATEMENTS = 256;
/** "cached plan must not change result type": the statement's tables changed under it. */
const PLAN_CHANGED = '0A000';

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Runs `sql` with `params` on `db` as a prepared statement: the result PGlite's `query` gives. */
export function preparedQueries(db, { maxStatements = MAX_STATEMENTS } = {}) {
  /** By statement text: its name, parameter types and row description; least recently used first. */
  const statements = new Map();
  /** Names of statements dropped from the map, closed with the next preparation. */
  const stale = [];
  let next = 1;

  async function prepare(sql) {
    const name = `ac_${next++}`;
    const parts = [serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name })];
    if (statements.size >= maxStatements) {
      const [oldest] = statements.keys();
      stale.push(statements.get(oldest).name);
      statements.delete(oldest);
    }
    const closing = stale.splice(0);
    for (const old of closing) parts.push(serialize.close({ type: 'S', name: old }));
    parts.push(serialize.sync());
    const { messages } = await db.execProtocol(concat(parts), { syncToFs: false });
    const statement = {
      name,
      types: messages.find((m) => m.name === 'parameterDescription')?.dataTypeIDs ?? [],
      rows: messages.find((m) => m.name === 'rowDescription'),
    };
    statements.set(sql, statement);
    return statement;
  }

  async function run(sql, params) {
    let statement = statements.get(sql);
    if (statement) {
      statements.delete(sql); // re-inserted: most recently used last
      statements.set(sql, statement);
    } else statement = await prepare(sql);
    // As PGlite's `query` serializes parameters: by the type the statement declares.
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[statement.types[i]];
      return serializer ? serializer(value) : value.toString();
    });
    const { messages } = await db.execProtocol(concat([serialize.bind({ statement: statement.name, values }), serialize.execute({}), serialize.sync()]));
    // Bind and execute answer no row description: the one described at preparation stands in.
    return parse.parseResults(statement.rows ? [statement.rows, ...messages] : messages, db.parsers)[0];
  }

  return async (sql, params = []) =>
    // PGlite's `query` holds both locks: none of this lands inside another's transaction.
    db._runExclusiveTransaction(() =>
      db._runExclusiveQuery(async () => {
        try {
          return await run(sql, params);
        } catch (err) {
          if (err?.code !== PLAN_CHANGED || !statements.has(sql)) throw err;
          stale.push(statements.get(sql).name);
          statements.delete(sql);
          return run(sql, params); // prepared anew
        }
      }),
    );
}
