/**
 * API keys at rest. A key is stored as a random public `key_id` plus HMAC-SHA256 keyed with the
 * server secret (API_KEY_SECRET, or one generated once into the data folder): a leaked table
 * alone neither reveals a key nor lets anyone test guesses offline. The secret is never stored.
 *
 * Rows written before migration 4 hold an unsalted SHA-256 (`hash_scheme = 'sha256'`). They still
 * verify, and the first successful use rewrites the row to the keyed hash, so a key in use sheds
 * its old form at once; a key never used again stays listed as needing rotation.
 *
 * One key per tenant may be the *provisioned* one (`provisioned_time`): the server's own, from
 * API_KEY or generated at first start. Provisioning another value revokes the older provisioned
 * keys of that tenant: the row stays with `revoked_time` set, never authenticates and never lists,
 * and its value cannot be provisioned again. Keys made through the API are never touched by it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord, KeyHashScheme, KeyOwner } from './tenantTypes';
import type { Queryable } from './contract';

/** HMAC-SHA256 of the key under the server secret, hex: what `api_keys.key_hash` holds. */
export function keyedKeyHash(secret: string, plaintextKey: string): string {
  return createHmac('sha256', secret).update(plaintextKey, 'utf8').digest('hex');
}

/** The pre-migration-4 form (unsalted SHA-256), only to recognise old rows. */
function legacyKeyHash(plaintextKey: string): string {
  return createHash('sha256').update(plaintextKey, 'utf8').digest('hex');
}

/** A new key in RAGFlow's token form (`ragflow-` + random). */
export function generateApiKey(): string {
  return `ragflow-${randomBytes(24).toString('base64url')}`;
}

/** A random public key id: safe to show in lists and logs, unrelated to the key. */
export function generateKeyId(): string {
  return randomBytes(16).toString('hex');
}

function sameHash(storedHex: string, computedHex: string): boolean {
  const a = Buffer.from(storedHex, 'hex');
  const b = Buffer.from(computedHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

interface KeyRow extends ApiKeyRecord {
  key_hash: string;
  admin: boolean;
  disabled_time: number | null;
  provisioned_time: number | null;
  revoked_time: number | null;
}

const KEY_COLUMNS = 'k.key_id, k.tenant_id, k.hash_scheme, k.create_time, k.update_time';

/** Key operations over `db`; every one needs the server secret. */
export class ApiKeys {
  constructor(
    private readonly db: Queryable,
    private readonly secret: string | undefined,
  ) {}

  private hmac(plaintextKey: string): string {
    if (!this.secret) {
      throw new Error('API keys need the server secret: open the store with apiKeySecret (API_KEY_SECRET, or <DATA_DIR>/api-key-secret made by npm start)');
    }
    return keyedKeyHash(this.secret, plaintextKey);
  }

  /** The row of a key (any tenant, disabled or not), re-keying a legacy row it matches. */
  async find(plaintextKey: string): Promise<KeyRow | null> {
    const keyed = this.hmac(plaintextKey);
    const legacy = legacyKeyHash(plaintextKey);
    const result = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS}, k.key_hash, k.provisioned_time, k.revoked_time, t.admin, t.disabled_time
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
       WHERE (k.key_hash = $1 AND k.hash_scheme = 'hmac-sha256') OR (k.key_hash = $2 AND k.hash_scheme = 'sha256')`,
      [keyed, legacy],
    );
    const row = result.rows.find((r) => sameHash(r.key_hash, r.hash_scheme === 'sha256' ? legacy : keyed));
    if (!row) return null;
    if (row.hash_scheme === 'sha256') await this.rekey(row, keyed);
    return row;
  }

  private async rekey(row: KeyRow, keyed: string): Promise<void> {
    const now = Date.now();
    // Concurrent first uses both try; the loser's update matches no row.
    await this.db.query(`UPDATE api_keys SET key_hash = $1, hash_scheme = 'hmac-sha256', update_time = $2 WHERE key_id = $3 AND hash_scheme = 'sha256'`, [
      keyed,
      now,
      row.key_id,
    ]);
    Object.assign(row, { key_hash: keyed, hash_scheme: 'hmac-sha256' satisfies KeyHashScheme, update_time: now });
  }

  async authenticate(plaintextKey: string): Promise<KeyOwner | null> {
    const row = await this.find(plaintextKey);
    if (!row || row.disabled_time !== null || row.revoked_time !== null) return null;
    return { tenantId: row.tenant_id, keyId: row.key_id, admin: row.admin };
  }

  /** Stores `plaintextKey` for the tenant unless it is registered already (to anyone). */
  async add(tenantId: string, plaintextKey: string): Promise<ApiKeyRecord | null> {
    if (await this.find(plaintextKey)) return null;
    const record: ApiKeyRecord = { key_id: generateKeyId(), tenant_id: tenantId, hash_scheme: 'hmac-sha256', create_time: Date.now(), update_time: null };
    const inserted = await this.db.query(
      `INSERT INTO api_keys (key_id, key_hash, tenant_id, hash_scheme, create_time, update_time) VALUES ($1, $2, $3, $4, $5, NULL)
       ON CONFLICT (key_hash) DO NOTHING RETURNING key_id`,
      [record.key_id, this.hmac(plaintextKey), tenantId, record.hash_scheme, record.create_time],
    );
    return inserted.rows.length > 0 ? record : null;
  }

  /**
   * Makes `plaintextKey` the tenant's provisioned key and revokes the provisioned keys before it;
   * resolves to how many it revoked. Refuses a value that was replaced (it may have leaked with the
   * old configuration) and one that belongs to another tenant.
   */
  async provision(tenantId: string, plaintextKey: string): Promise<{ revoked: number }> {
    let row = await this.find(plaintextKey);
    if (!row) {
      await this.add(tenantId, plaintextKey);
      // A process starting beside this one may have added it first: read what was stored either way.
      row = await this.find(plaintextKey);
      if (!row) throw new Error('API_KEY could not be stored');
    }
    if (row.tenant_id !== tenantId) throw new Error(`API_KEY is already a key of tenant ${row.tenant_id}; choose another value`);
    if (row.revoked_time !== null) {
      throw new Error(
        `API_KEY was replaced by a newer key at ${new Date(row.revoked_time).toISOString()} and stays revoked; set the current key or a new value`,
      );
    }
    const now = Date.now();
    // The key this tenant's provisioned keys are ordered by: a key made through the API and then
    // set as API_KEY becomes the provisioned one from now on.
    const since =
      row.provisioned_time ??
      (
        await this.db.query<{ provisioned_time: number }>('UPDATE api_keys SET provisioned_time = $2 WHERE key_id = $1 RETURNING provisioned_time', [
          row.key_id,
          now,
        ])
      ).rows[0]!.provisioned_time;
    // Older ones only: a process still configured with an earlier value cannot revoke a newer key.
    const revoked = await this.db.query(
      `UPDATE api_keys SET revoked_time = $4 WHERE tenant_id = $1 AND key_id <> $2 AND provisioned_time <= $3 AND revoked_time IS NULL RETURNING key_id`,
      [tenantId, row.key_id, since, now],
    );
    return { revoked: revoked.rows.length };
  }

  /** Revokes `plaintextKey` if it is a live key of the tenant (a generated key an operator replaced with API_KEY); true when it did. */
  async retire(tenantId: string, plaintextKey: string): Promise<boolean> {
    const row = await this.find(plaintextKey);
    if (!row || row.tenant_id !== tenantId || row.revoked_time !== null) return false;
    await this.db.query('UPDATE api_keys SET revoked_time = $2 WHERE key_id = $1 AND revoked_time IS NULL', [row.key_id, Date.now()]);
    return true;
  }

  async create(tenantId: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = generateApiKey();
    const record = await this.add(tenantId, key);
    if (!record) throw new Error('a freshly generated API key collided with a stored one');
    return { key, record };
  }

  async list(tenantId: string): Promise<ApiKeyRecord[]> {
    const result = await this.db.query<ApiKeyRecord>(
      `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.tenant_id = $1 AND k.revoked_time IS NULL ORDER BY k.create_time, k.key_id`,
      [tenantId],
    );
    return result.rows;
  }

  async revoke(tenantId: string, keyId: string): Promise<boolean> {
    const deleted = await this.db.query('DELETE FROM api_keys WHERE tenant_id = $1 AND key_id = $2 RETURNING key_id', [tenantId, keyId]);
    return deleted.rows.length > 0;
  }
}
