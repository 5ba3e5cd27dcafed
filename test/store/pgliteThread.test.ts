/**
 * PGlite on its own thread (src/io/store/pgliteThread.ts): what crossing the thread must keep.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type OpenedDb } from '../../src/io/store/db';

const root = path.resolve(__dirname, '../..');
let db: OpenedDb;
beforeAll(async () => {
  db = await openDb({});
});
afterAll(async () => {
  await db?.close();
});

describe('PGlite on a thread of its own', () => {
  it('keeps a database error’s code, detail and constraint', async () => {
    await db.query('CREATE TABLE thread_unique (k text PRIMARY KEY)');
    await db.query("INSERT INTO thread_unique VALUES ('a')");
    const failure = await db.query("INSERT INTO thread_unique VALUES ('a')").catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: '23505', constraint: 'thread_unique_pkey', message: expect.stringContaining('duplicate key') });
  });

  it('answers statements asked from inside and outside a transaction in order, and rolls back on error', async () => {
    await db.query('CREATE TABLE thread_order (n int)');
    const failed = db.transaction(async (tx) => {
      await tx.query('INSERT INTO thread_order VALUES (1)');
      throw new Error('undo');
    });
    const outside = db.query('INSERT INTO thread_order VALUES (2)');
    await expect(failed).rejects.toThrow('undo');
    await outside;
    expect((await db.query<{ n: number }>('SELECT n FROM thread_order')).rows).toEqual([{ n: 2 }]);
  });

  it('does not keep a process alive once its statements are answered (a store left open)', () => {
    const script = `const { openDb } = await import(${JSON.stringify(path.join(root, 'src/io/store/db.ts'))});
      const db = await openDb({ log: () => {} });
      console.log(JSON.stringify((await db.query('SELECT 41 + 1 AS n')).rows));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(run.signal).toBeNull();
    expect(run.stdout.trim()).toBe('[{"n":42}]');
    expect(run.status).toBe(0);
  });
});
