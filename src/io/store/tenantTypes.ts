/** Tenants and their API keys as the store sees them (the key itself is never stored). */

export interface TenantRecord {
  id: string;
  name: string;
  create_time: number;
}

/** A tenant as the admin routes list it. */
export interface TenantSummary extends TenantRecord {
  /** Keys of an admin tenant may manage tenants (the default tenant is the admin one). */
  admin: boolean;
  /** Set when the tenant was disabled: its keys stop working at once. */
  disabled_time: number | null;
  key_count: number;
}

/**
 * How `key_hash` was computed: `hmac-sha256` (HMAC with the server secret) for every key made or
 * used since migration 4; `sha256` (unsalted, the old form) for a key not used since the upgrade.
 */
export type KeyHashScheme = 'hmac-sha256' | 'sha256';

/** An API key as lists show it: its public id and timestamps, never the key. */
export interface ApiKeyRecord {
  key_id: string;
  tenant_id: string;
  hash_scheme: KeyHashScheme;
  create_time: number;
  /** When the stored hash last changed (a legacy key re-keyed on its first use), or null. */
  update_time: number | null;
}

/** Who a bearer key belongs to. */
export interface KeyOwner {
  tenantId: string;
  keyId: string;
  admin: boolean;
}

export interface TenantsRepository {
  /** Creates the tenant unless it exists; `admin: true` also marks it (never unmarks). */
  ensure(id: string, name: string, opts?: { admin?: boolean }): Promise<TenantRecord>;
  /** A new tenant, or null when `id` is taken. */
  create(input: { id: string; name: string }): Promise<TenantRecord | null>;
  get(id: string): Promise<TenantSummary | null>;
  list(): Promise<TenantSummary[]>;
  /** Disables the tenant (its keys stop working); null when there is no such tenant. */
  disable(id: string): Promise<TenantSummary | null>;
  /**
   * Registers a key chosen by the operator (API_KEY). A key already registered keeps its owner:
   * adding it again is a no-op, never a takeover.
   */
  addApiKey(tenantId: string, plaintextKey: string): Promise<void>;
  /**
   * Makes the key the tenant's provisioned key (API_KEY, or the one `npm start` generated) and
   * revokes the provisioned keys it replaces; keys made through the API stay. Throws for a value
   * that was replaced before or belongs to another tenant.
   */
  provisionApiKey(tenantId: string, plaintextKey: string): Promise<{ revoked: number }>;
  /** Revokes the key if it is a live key of the tenant; true when it did. */
  retireApiKey(tenantId: string, plaintextKey: string): Promise<boolean>;
  /** A new random key for the tenant: the key is returned here once and never again. */
  createApiKey(tenantId: string): Promise<{ key: string; record: ApiKeyRecord }>;
  listApiKeys(tenantId: string): Promise<ApiKeyRecord[]>;
  /**
   * Revokes one of the tenant's keys by key id; false when the tenant has no such key. Never by
   * the key itself: it would travel in a URL path, which request logs record.
   */
  revokeApiKey(tenantId: string, keyId: string): Promise<boolean>;
  /** The owner of a key of an enabled tenant, or null. Re-keys a legacy (`sha256`) row on its first use. */
  authenticate(plaintextKey: string): Promise<KeyOwner | null>;
  /** `authenticate(key)?.tenantId`. */
  tenantForKey(plaintextKey: string): Promise<string | null>;
}
