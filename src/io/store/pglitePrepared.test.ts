/**
 * Statements prepared once on PGlite (pglitePrepared.mjs), against PGlite's own `query` on the
 * same database: the same rows and types, errors with their codes, a statement prepared anew when
 * its table changes, a bounded number kept, and nothing run inside another's open transaction.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { preparedQueries } from './pglitePrepared.mjs';

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
}, 60_000);
afterAll(async () => db?.close());
// Each case starts from an empty table and no prepared statement.
beforeEach(async () => {
  await db.exec(`DEALLOCATE ALL; DROP TABLE IF EXISTS items;
    CREATE TABLE items (id text PRIMARY KEY, n int, price float8, data jsonb, tags text[], done boolean, note text)`);
});

const preparedCount = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]!.n;

describe('preparedQueries', () => {
  it('answers as PGlite’s query does: rows, types, nulls and affected rows', async () => {
    const run = preparedQueries(db);
    const insert = `INSERT INTO items (id, n, price, data, tags, done, note) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`;
    const viaPrepared = await run(insert, ['a', 1, 2.5, JSON.stringify({ k: ['v'] }), ['x', 'y'], true, null]);
    const viaQuery = await db.query(insert, ['b', 1, 2.5, JSON.stringify({ k: ['v'] }), ['x', 'y'], true, null]);
    expect(viaPrepared.rows).toEqual([{ ...(viaQuery.rows[0] as object), id: 'a' }]);
    expect(viaPrepared.rows[0]).toMatchObject({ n: 1, price: 2.5, data: { k: ['v'] }, tags: ['x', 'y'], done: true, note: null });
    expect(viaPrepared.fields.map((f) => f.name)).toEqual(viaQuery.fields.map((f) => f.name));

    const update = await run(`UPDATE items SET n = n + 1 WHERE id = ANY($1::text[])`, [['a', 'b']]);
    expect(update.affectedRows).toBe(2);
    // The same text again uses the statement prepared the first time.
    expect((await run(`SELECT id, n FROM items WHERE n > $1 ORDER BY id`, [0])).rows).toEqual([
      { id: 'a', n: 2 },
      { id: 'b', n: 2 },
    ]);
    expect((await run(`SELECT id, n FROM items WHERE n > $1 ORDER BY id`, [5])).rows).toEqual([]);
    expect(await preparedCount()).toBe(3);
  });

  it('reports a failing statement with its code, and runs the next one', async () => {
    const run = preparedQueries(db);
    await run(`INSERT INTO items (id) VALUES ($1)`, ['a']);
    await expect(run(`INSERT INTO items (id) VALUES ($1)`, ['a'])).rejects.toMatchObject({ code: '23505' });
    await expect(run(`SELECT nope FROM items`)).rejects.toMatchObject({ code: '42703' });
    expect((await run(`SELECT count(*)::int AS n FROM items`)).rows).toEqual([{ n: 1 }]);
  });

  it('prepares a statement anew when its table changed under it', async () => {
    const run = preparedQueries(db);
    await run(`INSERT INTO items (id) VALUES ($1)`, ['a']);
    expect(Object.keys((await run(`SELECT * FROM items`)).rows[0] as object)).not.toContain('extra');
    await db.exec(`ALTER TABLE items ADD COLUMN extra text DEFAULT 'x'`);
    expect((await run(`SELECT * FROM items`)).rows[0]).toMatchObject({ id: 'a', extra: 'x' });
  });

  it('keeps at most the statements it is allowed, closing the least recently used', async () => {
    const run = preparedQueries(db, { maxStatements: 2 });
    for (let i = 0; i < 6; i++) await run(`SELECT ${i} AS n`);
    expect(await preparedCount()).toBe(2);
    expect((await run(`SELECT 0 AS n`)).rows).toEqual([{ n: 0 }]);
  });

  it('waits for another’s open transaction instead of running inside it', async () => {
    const run = preparedQueries(db);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let began!: () => void;
    const inside = new Promise<void>((r) => (began = r));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO items (id) VALUES ('in-transaction')`);
        began();
        await held;
        await tx.rollback();
      })
      .catch(() => undefined);
    await inside;
    const outside = run(`INSERT INTO items (id) VALUES ($1)`, ['outside']);
    setTimeout(release, 50);
    await Promise.all([rolledBack, outside]);
    // Had it run inside the transaction, the rollback would have taken it back too.
    expect((await db.query(`SELECT id FROM items ORDER BY id`)).rows).toEqual([{ id: 'outside' }]);
  });
});
