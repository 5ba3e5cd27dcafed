/**
 * Key and tenant management over HTTP: RAGFlow's token routes for a tenant's own keys, our admin
 * routes for tenants, and the server secret the keys are hashed with.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApiKeySecret, provisionApiKey } from '../../server/boot/apiKey';
import { api, startHarness, TENANT, type Harness } from '../helpers/appHarness';

interface KeyView {
  key_id: string;
  token: string;
  tenant_id: string;
  create_time: number;
  create_date: string;
}

let h: Harness;
let dataDir: string;
let adminKey: string;

beforeAll(async () => {
  h = await startHarness();
  dataDir = mkdtempSync(join(tmpdir(), 'agent-canvas-keys-'));
  // What npm start does for the default tenant: it becomes the admin tenant.
  adminKey = (await provisionApiKey(h.store, { tenantId: 'default-admin', dataDir })).key;
});
afterAll(async () => {
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const newToken = async (key: string) => (await api(h, 'POST', '/api/v1/system/tokens', { key })).body as { code: number; data: KeyView };
const tokenList = async (key: string) => (await api(h, 'GET', '/api/v1/system/tokens', { key })).body as { code: number; data: KeyView[] };

describe('a tenant’s own keys (RAGFlow’s /system/tokens)', () => {
  it('creates a key shown once, lists it by key id only, and a revoked key is refused at once', async () => {
    const created = await newToken(h.key);
    expect(created).toMatchObject({
      code: 0,
      data: {
        tenant_id: TENANT,
        token: expect.stringMatching(/^ragflow-/),
        key_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        create_time: expect.any(Number),
        create_date: expect.any(String),
      },
    });
    const { token, key_id } = created.data;
    expect((await api(h, 'GET', '/api/v1/agents', { key: token })).body).toMatchObject({ code: 0 });

    const listed = await tokenList(h.key);
    expect(listed.code).toBe(0);
    expect(listed.data.map((k) => k.key_id)).toContain(key_id);
    expect(JSON.stringify(listed.data)).not.toContain(token);

    expect((await api(h, 'DELETE', `/api/v1/system/tokens/${key_id}`)).body).toEqual({ code: 0, message: 'success', data: true });
    expect((await api(h, 'GET', '/api/v1/agents', { key: token })).body).toEqual({ code: 401, message: "<Unauthorized '401: Unauthorized'>", data: null });
    expect((await api(h, 'GET', `/api/v1/runs/x`, { key: token })).status).toBe(401);
    expect((await tokenList(h.key)).data.map((k) => k.key_id)).not.toContain(key_id);
  });

  it('revokes by the listed `token` (the key id), never by the key in a URL, which request logs record', async () => {
    const { token, key_id } = (await newToken(h.key)).data;
    expect((await api(h, 'DELETE', `/api/v1/system/tokens/${encodeURIComponent(token)}`)).body).toEqual({ code: 102, message: 'API key not found.' });
    const listed = (await tokenList(h.key)).data.find((k) => k.key_id === key_id);
    expect(listed?.token).toBe(key_id);
    expect((await api(h, 'DELETE', `/api/v1/system/tokens/${listed!.token}`)).body).toMatchObject({ code: 0, data: true });
    expect((await api(h, 'GET', '/api/v1/agents', { key: token })).body).toMatchObject({ code: 401 });
  });

  it('never shows or revokes another tenant’s keys', async () => {
    const mine = (await newToken(h.key)).data;
    expect((await tokenList(h.otherKey)).data.map((k) => k.key_id)).not.toContain(mine.key_id);
    for (const target of [mine.key_id, mine.token]) {
      expect((await api(h, 'DELETE', `/api/v1/system/tokens/${encodeURIComponent(target)}`, { key: h.otherKey })).body).toEqual({
        code: 102,
        message: 'API key not found.',
      });
    }
    expect((await api(h, 'GET', '/api/v1/agents', { key: mine.token })).body).toMatchObject({ code: 0 });
  });

  it('answers the token routes without a valid key as every RAGFlow route does', async () => {
    expect((await api(h, 'GET', '/api/v1/system/tokens', { key: null })).status).toBe(401);
    expect((await api(h, 'POST', '/api/v1/system/tokens', { key: 'ragflow-unknown' })).body).toMatchObject({ code: 401 });
  });
});

describe('tenants (admin routes)', () => {
  it('lets the admin create a tenant with its first key, which works and sees only its own data', async () => {
    const res = await api(h, 'POST', '/api/v1/admin/tenants', { key: adminKey, body: { name: 'Acme', id: 'acme-1' } });
    expect(res.status).toBe(201);
    const body = res.body as { tenant: Record<string, unknown>; api_key: KeyView };
    expect(body.tenant).toMatchObject({ id: 'acme-1', name: 'Acme', admin: false, disabled: false, key_count: 1 });
    expect(body.api_key).toMatchObject({ tenant_id: 'acme-1', token: expect.stringMatching(/^ragflow-/) });
    const agents = (await api(h, 'GET', '/api/v1/agents', { key: body.api_key.token })).body as { code: number; data: { canvas: unknown[] } };
    expect(agents).toMatchObject({ code: 0, data: { canvas: [] } });
    expect((await tokenList(body.api_key.token)).data.map((k) => k.key_id)).toEqual([body.api_key.key_id]);

    const list = (await api(h, 'GET', '/api/v1/admin/tenants', { key: adminKey })).body as { tenants: Array<{ id: string }> };
    expect(list.tenants.map((t) => t.id)).toEqual(expect.arrayContaining(['acme-1', 'default-admin', TENANT]));
    expect((await api(h, 'POST', '/api/v1/admin/tenants', { key: adminKey, body: { name: 'Again', id: 'acme-1' } })).status).toBe(409);
  });

  it('disables a tenant: its keys are refused from the next request, and no new key is issued for it', async () => {
    const created = (await api(h, 'POST', '/api/v1/admin/tenants', { key: adminKey, body: { name: 'Brief' } })).body as {
      tenant: { id: string };
      api_key: KeyView;
    };
    expect((await api(h, 'GET', '/api/v1/agents', { key: created.api_key.token })).body).toMatchObject({ code: 0 });
    const disabled = await api(h, 'DELETE', `/api/v1/admin/tenants/${created.tenant.id}`, { key: adminKey });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ tenant: { id: created.tenant.id, disabled: true } });
    expect((await api(h, 'GET', '/api/v1/agents', { key: created.api_key.token })).body).toMatchObject({ code: 401 });
    expect((await api(h, 'POST', `/api/v1/admin/tenants/${created.tenant.id}/tokens`, { key: adminKey })).status).toBe(409);
    expect((await api(h, 'DELETE', '/api/v1/admin/tenants/no-such-tenant', { key: adminKey })).status).toBe(404);
    expect((await api(h, 'DELETE', '/api/v1/admin/tenants/default-admin', { key: adminKey })).status).toBe(400);
  });

  it('issues a key for any tenant, e.g. one that revoked all of its own', async () => {
    const res = await api(h, 'POST', `/api/v1/admin/tenants/${TENANT}/tokens`, { key: adminKey });
    expect(res.status).toBe(201);
    const { token } = (res.body as { api_key: KeyView }).api_key;
    expect((await api(h, 'GET', '/api/v1/agents', { key: token })).body).toMatchObject({ code: 0 });
  });

  it('refuses tenant routes to a key that is not the admin tenant’s, with 403', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/admin/tenants'],
      ['POST', `/api/v1/admin/tenants/${TENANT}/tokens`],
      ['DELETE', `/api/v1/admin/tenants/${TENANT}`],
    ] as const) {
      const res = await api(h, method, path, { key: h.otherKey });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'NO_PERMISSION' });
    }
    expect((await api(h, 'POST', '/api/v1/admin/tenants', { key: h.otherKey, body: { name: 'x' } })).status).toBe(403);
  });

  it('names the wrong field of a new tenant', async () => {
    const res = await api(h, 'POST', '/api/v1/admin/tenants', { key: adminKey, body: { name: '', id: 'no spaces allowed' } });
    expect(res.status).toBe(400);
    expect((res.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual(expect.arrayContaining(['$.body.name', '$.body.id']));
  });
});

describe('the server secret', () => {
  it('is made once into the data folder, owner-readable only, and read back on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-canvas-secret-'));
    try {
      const first = await loadApiKeySecret({ dataDir: dir });
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(statSync(join(dir, 'api-key-secret')).mode & 0o777).toBe(0o600);
      expect(await loadApiKeySecret({ dataDir: dir })).toBe(first);
      expect(await loadApiKeySecret({ dataDir: dir, secret: 'x'.repeat(32) })).toBe('x'.repeat(32));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
