import { expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../../src/io/store/migrations';
import { freshTenant, type StoreContext } from './context';
import { skipBecause } from '../../helpers/skip';

export function dbCases(ctx: StoreContext): void {
  it('applies migrations once: running them again changes nothing', async () => {
    expect(await migrate(ctx.db)).toEqual([]);
    expect(await migrate(ctx.db)).toEqual([]);
    const recorded = await ctx.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(recorded.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('commits a transaction and returns its result', async () => {
    const id = freshTenant();
    const result = await ctx.db.transaction(async (tx) => {
      await tx.query('INSERT INTO tenants (id, name, create_time) VALUES ($1, $2, $3)', [id, 'committed', Date.now()]);
      return 'done';
    });
    expect(result).toBe('done');
    expect((await ctx.db.query('SELECT id FROM tenants WHERE id = $1', [id])).rows).toHaveLength(1);
  });

  it('rolls back every write of a failed transaction', async () => {
    const id = freshTenant();
    const failure = ctx.db.transaction(async (tx) => {
      await tx.query('INSERT INTO tenants (id, name, create_time) VALUES ($1, $2, $3)', [id, 'rolled back', Date.now()]);
      throw new Error('boom');
    });
    await expect(failure).rejects.toThrow('boom');
    expect((await ctx.db.query('SELECT id FROM tenants WHERE id = $1', [id])).rows).toHaveLength(0);
  });

  it('keeps answering queries issued while a transaction is running', async () => {
    const id = freshTenant();
    const transaction = ctx.db.transaction(async (tx) => {
      await tx.query('INSERT INTO tenants (id, name, create_time) VALUES ($1, $2, $3)', [id, 'slow', Date.now()]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const seen = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants WHERE id = $1', [id]);
      return seen.rows[0]!.n;
    });
    const concurrent = Promise.all(Array.from({ length: 5 }, (_, i) => ctx.db.query<{ i: number }>('SELECT $1::int AS i', [i])));
    const [insideCount, answers] = await Promise.all([transaction, concurrent]);
    expect(insideCount).toBe(1);
    expect(answers.map((a) => a.rows[0]!.i)).toEqual([0, 1, 2, 3, 4]);
  });

  it('returns jsonb as objects and double precision as numbers', async () => {
    const result = await ctx.db.query<{ j: unknown; t: unknown; n: unknown }>(
      'SELECT $1::jsonb AS j, 1700000000123::double precision AS t, count(*) AS n FROM (VALUES (1), (2)) v(x)',
      [JSON.stringify({ list: [1, { a: 'b' }], nested: { ok: true } })],
    );
    expect(result.rows[0]).toEqual({ j: { list: [1, { a: 'b' }], nested: { ok: true } }, t: 1700000000123, n: 2 });
  });

  it('delivers a notification to a listener and stops after unlisten', async () => {
    const channel = 'store_test_channel';
    const payloads: string[] = [];
    let wake: () => void = () => {};
    const unlisten = await ctx.db.listen(channel, (payload) => {
      payloads.push(payload);
      wake();
    });
    const first = new Promise<void>((resolve) => (wake = resolve));
    await ctx.db.notify(channel, 'hello');
    await first;
    await unlisten();
    await ctx.db.notify(channel, 'ignored');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(payloads).toEqual(['hello']);
  });

  it('listens again after the LISTEN connection is killed (PostgreSQL)', async (test) => {
    if (ctx.db.kind !== 'postgres') skipBecause(test, 'PGlite has no separate LISTEN connection');
    const channel = 'store_test_reconnect';
    let received = false;
    const unlisten = await ctx.db.listen(channel, () => (received = true));
    const killed = await ctx.db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%store_test_reconnect%'`,
    );
    expect(killed.rows.length).toBeGreaterThanOrEqual(1);
    const deadline = Date.now() + 10_000;
    while (!received && Date.now() < deadline) {
      await ctx.db.notify(channel, 'after reconnect');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await unlisten();
    expect(received).toBe(true);
  });
}
