/**
 * The default tenant's API key. `API_KEY` provisions it; without one, `npm start` makes a key on
 * first start and keeps it in the data folder (readable by the owner only) so the next start
 * prints the same one. Only its hash is stored in the database.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Store } from '../store/types';

export async function provisionApiKey(store: Store, opts: { tenantId: string; apiKey?: string; dataDir: string }): Promise<{ key: string; generated: boolean }> {
  await store.tenants.ensure(opts.tenantId, 'Default tenant');
  if (opts.apiKey) {
    await store.tenants.addApiKey(opts.tenantId, opts.apiKey);
    return { key: opts.apiKey, generated: false };
  }
  const file = path.join(opts.dataDir, 'api-key');
  let key: string;
  try {
    key = (await fs.readFile(file, 'utf8')).trim();
  } catch {
    key = `ragflow-${randomBytes(24).toString('base64url')}`;
    await fs.mkdir(opts.dataDir, { recursive: true });
    await fs.writeFile(file, `${key}\n`, { mode: 0o600 });
  }
  await store.tenants.addApiKey(opts.tenantId, key);
  return { key, generated: true };
}
