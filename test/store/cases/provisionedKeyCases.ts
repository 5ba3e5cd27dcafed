/** Key rotation: the server's provisioned key (API_KEY, or generated) is replaced, never accumulated. */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { freshTenant, type StoreContext } from './context';

const newKey = () => `ragflow-${randomBytes(12).toString('base64url')}`;

export function provisionedKeyCases(ctx: StoreContext): void {
  it('revokes the previous provisioned key when another is provisioned, and keeps the keys made through the API', async () => {
    const tenantId = freshTenant();
    await ctx.store.tenants.ensure(tenantId, 'Rotating', { admin: true });
    const [first, second] = [newKey(), newKey()];
    expect(await ctx.store.tenants.provisionApiKey(tenantId, first)).toEqual({ revoked: 0 });
    const made = await ctx.store.tenants.createApiKey(tenantId);
    // The same value again (every restart with the same API_KEY) changes nothing.
    expect(await ctx.store.tenants.provisionApiKey(tenantId, first)).toEqual({ revoked: 0 });

    expect(await ctx.store.tenants.provisionApiKey(tenantId, second)).toEqual({ revoked: 1 });
    expect(await ctx.store.tenants.authenticate(first)).toBeNull();
    expect(await ctx.store.tenants.authenticate(second)).toMatchObject({ tenantId, admin: true });
    expect(await ctx.store.tenants.authenticate(made.key)).toMatchObject({ tenantId, keyId: made.record.key_id });
    // A revoked key is neither listed nor counted.
    expect((await ctx.store.tenants.listApiKeys(tenantId)).map((k) => k.key_id)).toHaveLength(2);
    expect((await ctx.store.tenants.get(tenantId))!.key_count).toBe(2);
  });

  it('refuses to provision a replaced value again, so an old configuration cannot revoke the new key', async () => {
    const tenantId = freshTenant();
    await ctx.store.tenants.ensure(tenantId, 'Rolling back', { admin: true });
    const [old, current] = [newKey(), newKey()];
    await ctx.store.tenants.provisionApiKey(tenantId, old);
    await ctx.store.tenants.provisionApiKey(tenantId, current);
    await expect(ctx.store.tenants.provisionApiKey(tenantId, old)).rejects.toThrow(/API_KEY was replaced by a newer key/);
    expect(await ctx.store.tenants.authenticate(current)).toMatchObject({ tenantId });
  });

  it('makes a key made through the API the provisioned one when it is set as API_KEY, and refuses another tenant’s key', async () => {
    const [tenantId, other] = [freshTenant(), freshTenant()];
    await ctx.store.tenants.ensure(tenantId, 'Adopting', { admin: true });
    await ctx.store.tenants.ensure(other, 'Someone else');
    const env = newKey();
    await ctx.store.tenants.provisionApiKey(tenantId, env);
    const made = await ctx.store.tenants.createApiKey(tenantId);
    expect(await ctx.store.tenants.provisionApiKey(tenantId, made.key)).toEqual({ revoked: 1 });
    expect(await ctx.store.tenants.authenticate(env)).toBeNull();
    const theirs = await ctx.store.tenants.createApiKey(other);
    await expect(ctx.store.tenants.provisionApiKey(tenantId, theirs.key)).rejects.toThrow(`already a key of tenant ${other}`);
    expect(await ctx.store.tenants.authenticate(theirs.key)).toMatchObject({ tenantId: other, admin: false });
  });

  it('retires a live key by value, once', async () => {
    const tenantId = freshTenant();
    await ctx.store.tenants.ensure(tenantId, 'Retiring');
    const key = newKey();
    await ctx.store.tenants.addApiKey(tenantId, key);
    expect(await ctx.store.tenants.retireApiKey(freshTenant(), key)).toBe(false);
    expect(await ctx.store.tenants.retireApiKey(tenantId, key)).toBe(true);
    expect(await ctx.store.tenants.retireApiKey(tenantId, key)).toBe(false);
    expect(await ctx.store.tenants.authenticate(key)).toBeNull();
  });
}
