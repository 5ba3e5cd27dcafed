/**
 * The PGlite template (PGLITE_TEMPLATE, src/io/store/store.ts): an empty store starts from it with
 * the schema a store migrated from nothing has, and no data; a data folder that already holds a
 * database is left as it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/io/store/store';
import { storeDb } from '../../src/io/store/storeDb';
import type { Store } from '../../src/io/store/contract';
import { makePgliteTemplate } from '../helpers/pgliteTemplate';

let template: Awaited<ReturnType<typeof makePgliteTemplate>>;
let dir: string;

beforeAll(async () => {
  template = await makePgliteTemplate();
  dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-template-test-'));
});

afterAll(() => {
  template?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The store's migrations and its tables with their columns. */
async function schemaOf(store: Store): Promise<{ migrations: unknown[]; columns: unknown[]; tenants: number }> {
  const db = storeDb(store);
  const migrations = (await db.query('SELECT version, name FROM schema_migrations ORDER BY version')).rows;
  const columns = (
    await db.query(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`)
  ).rows;
  const tenants = (await store.tenants.list()).length;
  return { migrations, columns, tenants };
}

describe('a PGlite store and its template', () => {
  it('starts an empty store from the template with the schema of a store migrated from nothing, and no data', async () => {
    const [fromNothing, fromTemplate] = await Promise.all([openStore({ pgliteTemplate: '' }), openStore({ pgliteTemplate: template.file })]);
    try {
      const [expected, actual] = await Promise.all([schemaOf(fromNothing), schemaOf(fromTemplate)]);
      expect(expected.migrations.length).toBeGreaterThan(0);
      expect(actual).toEqual(expected);
    } finally {
      await Promise.all([fromNothing.close(), fromTemplate.close()]);
    }
  });

  it("is made by the integration tiers' global setup, so every store of the run starts from one", () => {
    expect(process.env.PGLITE_TEMPLATE, 'test/storeTemplateSetup.ts in vitest.config.ts').toMatch(/pglite-template\.tar$/);
  });

  it('leaves a data folder that already holds a database as it is', async () => {
    const dataDir = path.join(dir, 'kept');
    const first = await openStore({ dataDir, pgliteTemplate: '' });
    await first.tenants.ensure('t-kept', 'Kept');
    await first.close();
    const again = await openStore({ dataDir, pgliteTemplate: template.file });
    try {
      expect((await again.tenants.list()).map((t) => t.id)).toContain('t-kept');
    } finally {
      await again.close();
    }
  });
});
