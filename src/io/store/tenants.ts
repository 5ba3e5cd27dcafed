/** Tenants and their API keys (kept as a key id plus a keyed hash: see apiKeys.ts). */
import { ApiKeys } from './apiKeys';
import type { TenantRecord, TenantSummary, TenantsRepository } from './tenantTypes';
import type { Queryable } from './contract';

const SUMMARY = `SELECT t.id, t.name, t.create_time, t.admin, t.disabled_time,
  (SELECT count(*)::int FROM api_keys k WHERE k.tenant_id = t.id AND k.revoked_time IS NULL) AS key_count
  FROM tenants t`;

/** The tenants repository over `db`; `apiKeySecret` keys the stored key hashes. */
export function tenantsRepository(db: Queryable, apiKeySecret?: string): TenantsRepository {
  const keys = new ApiKeys(db, apiKeySecret);

  const get = async (id: string): Promise<TenantSummary | null> => (await db.query<TenantSummary>(`${SUMMARY} WHERE t.id = $1`, [id])).rows[0] ?? null;

  return {
    async ensure(id, name, opts = {}) {
      const inserted = await db.query<TenantRecord>(
        `INSERT INTO tenants (id, name, create_time, admin) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO NOTHING
         RETURNING id, name, create_time`,
        [id, name, Date.now(), opts.admin === true],
      );
      if (inserted.rows[0]) return inserted.rows[0];
      if (opts.admin) await db.query('UPDATE tenants SET admin = true WHERE id = $1', [id]);
      const existing = await db.query<TenantRecord>('SELECT id, name, create_time FROM tenants WHERE id = $1', [id]);
      if (!existing.rows[0]) throw new Error(`tenant ${id} vanished while being ensured`);
      return existing.rows[0];
    },

    async create({ id, name }) {
      const inserted = await db.query<TenantRecord>(
        `INSERT INTO tenants (id, name, create_time) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id, name, create_time`,
        [id, name, Date.now()],
      );
      return inserted.rows[0] ?? null;
    },

    get,

    async list() {
      return (await db.query<TenantSummary>(`${SUMMARY} ORDER BY t.create_time, t.id`)).rows;
    },

    async disable(id) {
      await db.query('UPDATE tenants SET disabled_time = $2 WHERE id = $1 AND disabled_time IS NULL', [id, Date.now()]);
      return get(id);
    },

    async addApiKey(tenantId, plaintextKey) {
      await keys.add(tenantId, plaintextKey);
    },
    provisionApiKey: (tenantId, plaintextKey) => keys.provision(tenantId, plaintextKey),
    retireApiKey: (tenantId, plaintextKey) => keys.retire(tenantId, plaintextKey),
    createApiKey: (tenantId) => keys.create(tenantId),
    listApiKeys: (tenantId) => keys.list(tenantId),
    revokeApiKey: (tenantId, keyId) => keys.revoke(tenantId, keyId),
    authenticate: (plaintextKey) => keys.authenticate(plaintextKey),
    async tenantForKey(plaintextKey) {
      return (await keys.authenticate(plaintextKey))?.tenantId ?? null;
    },
  };
}
