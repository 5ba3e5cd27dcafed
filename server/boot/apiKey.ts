/**
 * The API key secret and the default tenant's API key.
 *
 * The secret keys the HMAC under which API keys are stored. `API_KEY_SECRET` sets it; without
 * one, `npm start` makes one on first start and keeps it in the data folder (owner-only), never in
 * the database: a copy of the database alone cannot verify key guesses. Losing the secret makes
 * every stored key unusable (issue new ones); processes sharing a database must share it.
 *
 * `API_KEY` provisions the default tenant's key; without one, `npm start` makes a key on first
 * start and keeps it in the data folder so the next start prints the same one. The default tenant
 * is the admin tenant: its keys may create, list and disable tenants.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { generateApiKey } from '../../src/io/store/apiKeys';
import type { Store } from '../../src/io/store/contract';

/** A value kept in a file of the data folder, made by `make` the first time. */
async function keptInDataDir(dataDir: string, name: string, make: () => string): Promise<string> {
  const file = path.join(dataDir, name);
  try {
    const kept = (await fs.readFile(file, 'utf8')).trim();
    if (kept) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const value = make();
  await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/** `API_KEY_SECRET`, or the secret kept in `<dataDir>/api-key-secret` (made on first start). */
export async function loadApiKeySecret(opts: { secret?: string; dataDir: string }): Promise<string> {
  if (opts.secret) return opts.secret;
  return keptInDataDir(opts.dataDir, 'api-key-secret', () => randomBytes(32).toString('base64url'));
}

export async function provisionApiKey(
  store: Store,
  opts: { tenantId: string; apiKey?: string; dataDir: string },
): Promise<{ key: string; generated: boolean }> {
  await store.tenants.ensure(opts.tenantId, 'Default tenant', { admin: true });
  const key = opts.apiKey ?? (await keptInDataDir(opts.dataDir, 'api-key', generateApiKey));
  await store.tenants.addApiKey(opts.tenantId, key);
  return { key, generated: !opts.apiKey };
}
