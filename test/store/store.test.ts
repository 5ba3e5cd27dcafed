/**
 * The store's behaviour, checked identically on both backends: embedded PGlite and a real
 * PostgreSQL server (started for this file, or TEST_DATABASE_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type OpenedDb } from '../../src/io/store/db';
import { migrate } from '../../src/io/store/migrations';
import { createStore, openStore } from '../../src/io/store/store';
import { newId } from '../../src/io/store/time';
import type { Store } from '../../src/io/store/contract';
import { startPostgres } from '../helpers/postgres';
import { apiKeyCases, STORE_API_KEY_SECRET } from './cases/apiKeyCases';
import { provisionedKeyCases } from './cases/provisionedKeyCases';
import { canvasCases, tenantCases } from './cases/canvasCases';
import type { StoreContext } from './cases/context';
import { dbCases } from './cases/dbCases';
import { eventCases } from './cases/eventCases';
import { knowledgeCases } from './cases/knowledgeCases';
import { ledgerCases } from './cases/ledgerCases';
import { callTraceCases } from './cases/callTraceCases';
import { admissionCases } from './cases/admissionCases';
import { runChangeCases } from './cases/runChangeCases';
import { messageQueueCases } from './cases/messageQueueCases';
import { runEndCases } from './cases/runEndCases';
import { runFileCases, runIndexCases, storeSurfaceCases } from './cases/runRowCases';
import { runCases, sessionCases } from './cases/sessionRunCases';
import { streamSlotCases } from './cases/streamSlotCases';

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[test/store] PostgreSQL backend skipped: ${postgres.skipped}`);
afterAll(async () => {
  if ('stop' in postgres) await postgres.stop();
});

interface Backend {
  /** Why this backend cannot be tested here, if it cannot. */
  skipped?: string;
  open(): Promise<OpenedDb>;
  /** A new, empty database; closing it also drops it where it has a name. */
  fresh(): Promise<OpenedDb>;
}

const quiet = () => {};

/** A new database on the PostgreSQL server at `url`, dropped when closed. */
async function freshPostgresDb(url: string): Promise<OpenedDb> {
  const admin = await openDb({ databaseUrl: url, log: quiet });
  const name = `fresh_${newId()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: target.toString(), log: quiet });
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.close();
  };
  return db;
}
const backends: [string, Backend][] = [
  ['PGlite', { open: () => openDb({ log: quiet }), fresh: () => openDb({ log: quiet }) }],
  [
    'PostgreSQL',
    'skipped' in postgres
      ? { skipped: postgres.skipped, open: () => Promise.reject(new Error(postgres.skipped)), fresh: () => Promise.reject(new Error(postgres.skipped)) }
      : { open: () => openDb({ databaseUrl: postgres.url, log: quiet }), fresh: () => freshPostgresDb(postgres.url) },
  ],
];

describe.each(backends)('store on %s', (_name, backend) => {
  describe.skipIf(backend.skipped !== undefined)('', () => {
    let opened: { db: OpenedDb; store: Store } | undefined;
    const ctx: StoreContext = {
      get store() {
        if (!opened) throw new Error('store not opened yet');
        return opened.store;
      },
      get db() {
        if (!opened) throw new Error('store not opened yet');
        return opened.db;
      },
      freshDb: () => backend.fresh(),
    };

    beforeAll(async () => {
      const db = await backend.open();
      await migrate(db);
      opened = { db, store: createStore(db, { apiKeySecret: STORE_API_KEY_SECRET }) };
    });
    afterAll(async () => {
      await opened?.store.close();
    });

    describe('database', () => dbCases(ctx));
    describe('tenants', () => tenantCases(ctx));
    describe('API keys', () => apiKeyCases(ctx));
    describe('the provisioned API key', () => provisionedKeyCases(ctx));
    describe('canvases', () => canvasCases(ctx));
    describe('sessions', () => sessionCases(ctx));
    describe('runs', () => runCases(ctx));
    describe('run ends', () => runEndCases(ctx));
    describe('events', () => eventCases(ctx));
    describe('stream slots', () => streamSlotCases(ctx));
    describe('knowledge', () => knowledgeCases(ctx));
    describe('cost ledger', () => ledgerCases(ctx));
    describe('model call traces', () => callTraceCases(ctx));
    describe('message queue', () => messageQueueCases(ctx));
    describe('tenant admission', () => admissionCases(ctx));
    describe('run index', () => runIndexCases(ctx));
    describe('run changes feed', () => runChangeCases(ctx));
    describe('run files', () => runFileCases(ctx));
    describe('blobs, health and the database handle', () => storeSurfaceCases(ctx));
  });
});

describe('store on PGlite with a data directory', () => {
  it('keeps its data when reopened', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-canvas-pglite-'));
    try {
      const first = await openStore({ dataDir, log: quiet });
      const canvas = await first.canvases.create({ tenantId: 'tenant-1', title: 'Persistent', dsl: { components: {} } });
      await first.close();
      const second = await openStore({ dataDir, log: quiet });
      expect(await second.canvases.get('tenant-1', canvas.id)).toEqual(canvas);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
