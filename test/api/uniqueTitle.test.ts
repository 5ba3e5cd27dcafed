/**
 * One agent per title (case-insensitive) per tenant, as RAGFlow checks it — enforced by the store,
 * so concurrent creates cannot slip past the API's check; the migration that adds the rule keeps
 * duplicates made before it, renamed. On PGlite and, when the machine has one, real PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type OpenedDb } from '../../src/io/store/db';
import { migrate, MIGRATIONS } from '../../src/io/store/migrations';
import { createStore } from '../../src/io/store/store';
import { newId } from '../../src/io/store/time';
import { AppError } from '../../src/errors';
import { startPostgres } from '../helpers/postgres';

const quiet = () => {};
const postgres = await startPostgres();
afterAll(async () => {
  if ('stop' in postgres) await postgres.stop();
});

async function freshDb(kind: string): Promise<OpenedDb> {
  if (kind === 'PGlite' || 'skipped' in postgres) return openDb({ log: quiet });
  const admin = await openDb({ databaseUrl: postgres.url, log: quiet });
  const name = `titles_${newId()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(postgres.url);
  target.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: target.toString(), log: quiet });
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.close();
  };
  return db;
}

const UNIQUE_TITLES = MIGRATIONS.findIndex((m) => m.name.startsWith('one canvas per title'));
const backends = ['PGlite', ...('skipped' in postgres ? [] : ['PostgreSQL'])];

describe.each(backends)('canvas titles on %s', (kind) => {
  it('lets one of ten concurrent creates with the same title (any case) through; the nine others are DUPLICATE', async () => {
    const db = await freshDb(kind);
    try {
      await migrate(db);
      const store = createStore(db);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.canvases.create({ tenantId: 't1', title: i % 2 ? 'Twin' : 'TWIN', dsl: { components: {} } })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) {
        expect(r.reason).toBeInstanceOf(AppError);
        expect(r.reason).toMatchObject({ code: 'DUPLICATE', message: expect.stringMatching(/^twin already exists\.$/i) });
      }
      // Another tenant may use the title; a rename onto a taken title is refused too.
      await store.canvases.create({ tenantId: 't2', title: 'Twin', dsl: { components: {} } });
      const other = await store.canvases.create({ tenantId: 't1', title: 'Other', dsl: { components: {} } });
      await expect(store.canvases.update('t1', other.id, { title: 'twin' })).rejects.toMatchObject({ code: 'DUPLICATE', message: 'twin already exists.' });
    } finally {
      await db.close();
    }
  });

  it('keeps duplicates made before the rule, under a title that says so', async () => {
    const db = await freshDb(kind);
    try {
      await migrate(db, MIGRATIONS.slice(0, UNIQUE_TITLES));
      const store = createStore(db);
      const first = await store.canvases.create({ tenantId: 't1', title: 'Dup', dsl: { components: {} } });
      const second = await store.canvases.create({ tenantId: 't1', title: 'dup', dsl: { components: {} } });
      await migrate(db);
      const titles = [(await store.canvases.get('t1', first.id))!.title, (await store.canvases.get('t1', second.id))!.title];
      expect([
        [first.title, `${second.title} (duplicate ${second.id})`],
        [`${first.title} (duplicate ${first.id})`, second.title],
      ]).toContainEqual(titles);
    } finally {
      await db.close();
    }
  });
});
