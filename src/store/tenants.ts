/** Tenants and their API keys. Keys are stored only as SHA-256 hashes. */
import { createHash } from 'node:crypto';
import type { Queryable, Store, TenantRecord } from './types';

const KEY_PREFIX_LENGTH = 8;

/** SHA-256 of the key, hex: what api_keys stores instead of the key itself. */
export function hashApiKey(plaintextKey: string): string {
  return createHash('sha256').update(plaintextKey, 'utf8').digest('hex');
}

/** The tenants repository over `db`. */
export function tenantsRepository(db: Queryable): Store['tenants'] {
  return {
    async ensure(id, name) {
      const inserted = await db.query<TenantRecord>(
        `INSERT INTO tenants (id, name, create_time) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO NOTHING
         RETURNING id, name, create_time`,
        [id, name, Date.now()],
      );
      if (inserted.rows[0]) return inserted.rows[0];
      const existing = await db.query<TenantRecord>('SELECT id, name, create_time FROM tenants WHERE id = $1', [id]);
      if (!existing.rows[0]) throw new Error(`tenant ${id} vanished while being ensured`);
      return existing.rows[0];
    },

    async addApiKey(tenantId, plaintextKey) {
      // A key already registered keeps its owner: re-adding it is a no-op, never a takeover.
      await db.query(
        `INSERT INTO api_keys (key_hash, tenant_id, prefix, create_time) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key_hash) DO NOTHING`,
        [hashApiKey(plaintextKey), tenantId, plaintextKey.slice(0, KEY_PREFIX_LENGTH), Date.now()],
      );
    },

    async tenantForKey(plaintextKey) {
      const result = await db.query<{ tenant_id: string }>('SELECT tenant_id FROM api_keys WHERE key_hash = $1', [
        hashApiKey(plaintextKey),
      ]);
      return result.rows[0]?.tenant_id ?? null;
    },
  };
}
