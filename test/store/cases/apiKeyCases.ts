/** API keys at rest: a public key id plus HMAC(server secret, key), nothing of the key itself. */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../../src/io/store/migrations';
import { createStore } from '../../../src/io/store/store';
import { tenantsRepository } from '../../../src/io/store/tenants';
import { freshTenant, type StoreContext } from './context';

/** The secret the suite's store is opened with. */
export const STORE_API_KEY_SECRET = 'store-test-secret-0123456789abcdef0123456789';

const hmac = (secret: string, key: string) => createHmac('sha256', secret).update(key).digest('hex');

/** Every 8-character piece of `key`. */
function piecesOf(key: string): string[] {
  return Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8));
}

export function apiKeyCases(ctx: StoreContext): void {
  it('stores a key as a random key id and HMAC(secret, key), with no piece of the key', async () => {
    const tenantId = freshTenant();
    await ctx.store.tenants.ensure(tenantId, 'Keys Inc');
    const key = `sk-${randomBytes(16).toString('base64url')}`;
    await ctx.store.tenants.addApiKey(tenantId, key);
    await ctx.store.tenants.addApiKey(tenantId, key); // the same key twice is harmless
    expect(await ctx.store.tenants.tenantForKey(key)).toBe(tenantId);
    expect(await ctx.store.tenants.tenantForKey(`${key}x`)).toBeNull();
    const stored = await ctx.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE tenant_id = $1', [tenantId]);
    expect(stored.rows).toEqual([
      expect.objectContaining({ key_id: expect.stringMatching(/^[0-9a-f]{32}$/), key_hash: hmac(STORE_API_KEY_SECRET, key), hash_scheme: 'hmac-sha256' }),
    ]);
    const row = JSON.stringify(stored.rows);
    for (const piece of piecesOf(key)) expect(row).not.toContain(piece);
  });

  it('keys the hash with the server secret: another secret gives another hash and does not verify', async () => {
    const tenantId = freshTenant();
    await ctx.store.tenants.ensure(tenantId, 'Two secrets');
    const key = `ragflow-${tenantId}`;
    await ctx.store.tenants.addApiKey(tenantId, key);
    const other = tenantsRepository(ctx.db, 'another-secret-0123456789abcdef0123456789');
    expect(hmac('another-secret-0123456789abcdef0123456789', key)).not.toBe(hmac(STORE_API_KEY_SECRET, key));
    expect(await other.tenantForKey(key)).toBeNull();
    expect(await ctx.store.tenants.tenantForKey(key)).toBe(tenantId);
  });

  it('refuses key operations without a server secret, saying what to configure', async () => {
    await expect(tenantsRepository(ctx.db).tenantForKey('anything')).rejects.toThrow(/apiKeySecret.*API_KEY_SECRET/);
  });

  it('never hands a registered key to another tenant', async () => {
    const owner = freshTenant();
    const intruder = freshTenant();
    await ctx.store.tenants.ensure(owner, 'Owner');
    await ctx.store.tenants.ensure(intruder, 'Intruder');
    const key = `ragflow-${owner}-taken`;
    await ctx.store.tenants.addApiKey(owner, key);
    await ctx.store.tenants.addApiKey(intruder, key);
    expect(await ctx.store.tenants.tenantForKey(key)).toBe(owner);
    expect(await ctx.store.tenants.listApiKeys(intruder)).toEqual([]);
  });

  it('creates, lists and revokes a tenant’s keys, each tenant seeing only its own', async () => {
    const tenantId = freshTenant();
    const other = freshTenant();
    await ctx.store.tenants.ensure(tenantId, 'Lister');
    await ctx.store.tenants.ensure(other, 'Other');
    const first = await ctx.store.tenants.createApiKey(tenantId);
    const second = await ctx.store.tenants.createApiKey(tenantId);
    expect(first.key).toMatch(/^ragflow-/);
    expect(await ctx.store.tenants.authenticate(first.key)).toEqual({ tenantId, keyId: first.record.key_id, admin: false });
    expect((await ctx.store.tenants.listApiKeys(tenantId)).map((k) => k.key_id).sort()).toEqual([first.record.key_id, second.record.key_id].sort());
    expect(JSON.stringify(await ctx.store.tenants.listApiKeys(tenantId))).not.toContain(first.key);
    expect(await ctx.store.tenants.revokeApiKey(other, first.record.key_id)).toBe(false);
    expect(await ctx.store.tenants.revokeApiKey(tenantId, first.record.key_id)).toBe(true);
    expect(await ctx.store.tenants.authenticate(first.key)).toBeNull();
    expect(await ctx.store.tenants.revokeApiKey(tenantId, second.key)).toBe(false); // by key id only
    expect(await ctx.store.tenants.revokeApiKey(tenantId, second.record.key_id)).toBe(true);
    expect(await ctx.store.tenants.listApiKeys(tenantId)).toEqual([]);
  });

  it('refuses the keys of a disabled tenant and lists tenants with their key counts', async () => {
    const tenantId = freshTenant();
    await ctx.store.tenants.ensure(tenantId, 'Short-lived');
    const { key } = await ctx.store.tenants.createApiKey(tenantId);
    expect(await ctx.store.tenants.get(tenantId)).toMatchObject({ id: tenantId, admin: false, disabled_time: null, key_count: 1 });
    expect(await ctx.store.tenants.disable(tenantId)).toMatchObject({ id: tenantId, disabled_time: expect.any(Number) });
    expect(await ctx.store.tenants.authenticate(key)).toBeNull();
    expect((await ctx.store.tenants.list()).map((t) => t.id)).toContain(tenantId);
    expect(await ctx.store.tenants.disable(freshTenant())).toBeNull();
  });

  it('keeps a pre-upgrade key working after the migration and re-keys it on first use', async () => {
    const db = await ctx.freshDb();
    try {
      await migrate(
        db,
        MIGRATIONS.filter((m) => m.version < 4),
      );
      const key = 'legacy-key-12345678';
      await db.query('INSERT INTO tenants (id, name, create_time) VALUES ($1, $2, $3)', ['old-tenant', 'Old', 1]);
      await db.query('INSERT INTO api_keys (key_hash, tenant_id, prefix, create_time) VALUES ($1, $2, $3, $4)', [
        createHash('sha256').update(key).digest('hex'),
        'old-tenant',
        key.slice(0, 8),
        1,
      ]);
      await migrate(db);
      const before = await db.query<Record<string, unknown>>('SELECT * FROM api_keys');
      expect(before.rows).toEqual([expect.objectContaining({ hash_scheme: 'sha256', key_id: expect.stringMatching(/^[0-9a-f]{32}$/) })]);
      expect(JSON.stringify(before.rows)).not.toContain(key.slice(0, 8));
      const store = createStore(db, { apiKeySecret: STORE_API_KEY_SECRET });
      expect(await store.tenants.listApiKeys('old-tenant')).toEqual([expect.objectContaining({ hash_scheme: 'sha256' })]);
      expect(await store.tenants.tenantForKey(key)).toBe('old-tenant');
      const after = await db.query<Record<string, unknown>>('SELECT key_id, key_hash, hash_scheme FROM api_keys');
      expect(after.rows).toEqual([{ key_id: before.rows[0]!.key_id, key_hash: hmac(STORE_API_KEY_SECRET, key), hash_scheme: 'hmac-sha256' }]);
      expect(await store.tenants.tenantForKey(key)).toBe('old-tenant');
      expect(await store.tenants.tenantForKey('legacy-key-wrong')).toBeNull();
    } finally {
      await db.close();
    }
  });
}
