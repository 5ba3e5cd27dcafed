/** The store: repositories over one Db, opened and migrated in one call. */
import { blobsRepository } from './blobs';
import { canvasesRepository } from './canvases';
import { chunksRepository, prepareVectorColumn } from './chunks';
import { datasetsRepository, documentsRepository } from './datasets';
import { openDb } from './db';
import { eventsRepository } from './events';
import { ledgerRepository } from './ledger';
import { callTracesRepository } from './callTraces';
import { admissionRepository } from './admission';
import { mcpServersRepository } from './mcpServers';
import { messageQueueRepository } from './messageQueue';
import { memoriesRepository } from './memories';
import { migrate } from './migrations';
import { runChangesRepository } from './runChanges';
import { runFilesRepository } from './runFiles';
import { runIndexRepository } from './runIndex';
import { runsRepository } from './runs';
import { sessionsRepository } from './sessions';
import { attachDb } from './storeDb';
import { tenantsRepository } from './tenants';
import { travelRepository } from './travel';
import { recordNewSessionTurn, recordRunStart, recordTurnStart } from './turnStarts';
import type { Db, Store } from './contract';

export interface OpenStoreOptions {
  /** PostgreSQL URL; PGlite is used when absent. */
  databaseUrl?: string;
  /** PGlite data directory; in memory when absent. */
  dataDir?: string;
  /** Receives warnings (missing pgvector, lost LISTEN connection). Defaults to console.warn. */
  log?: (msg: string) => void;
  /** Keys the stored API key hashes (HMAC); key operations fail without it. Never stored. */
  apiKeySecret?: string;
  /**
   * A migrated PGlite data folder as PGlite's `dumpDataDir` writes it (a tarball): an empty PGlite
   * store starts from it instead of running initdb and every migration (seconds of CPU each time;
   * the test suite opens a hundred). Migrations newer than it still run. Default: PGLITE_TEMPLATE.
   */
  pgliteTemplate?: string;
}

/** Repositories over an already migrated `db`; `close()` closes the db. */
export function createStore(db: Db, opts: { vector?: boolean; apiKeySecret?: string } = {}): Store {
  const vector = opts.vector ?? false;
  const events = eventsRepository(db);
  const store: Store = {
    tenants: tenantsRepository(db, opts.apiKeySecret),
    canvases: canvasesRepository(db),
    sessions: sessionsRepository(db),
    runs: runsRepository(db, events),
    events,
    blobs: blobsRepository(db),
    files: runFilesRepository(db),
    runIndex: runIndexRepository(db),
    runChanges: runChangesRepository(db),
    travel: travelRepository(db),
    starts: {
      run: (p) => recordRunStart(db, p),
      turn: (p) => recordTurnStart(db, p),
      newSessionTurn: (p) => recordNewSessionTurn(db, p),
    },
    mcpServers: mcpServersRepository(db),
    memories: memoriesRepository(db),
    ledger: ledgerRepository(db),
    callTraces: callTracesRepository(db),
    messageQueue: messageQueueRepository(db),
    admission: admissionRepository(db),
    knowledge: {
      datasets: datasetsRepository(db),
      documents: documentsRepository(db),
      chunks: chunksRepository(db, vector),
      vectorSearch: vector ? 'pgvector' : 'sql',
    },
    ping: async () => void (await db.query('SELECT 1')),
    close: () => db.close(),
  };
  return attachDb(store, db);
}

/**
 * Opens the database (PostgreSQL with `databaseUrl`, PGlite otherwise), applies pending
 * migrations and returns the store.
 * @throws AppError STORE_UNAVAILABLE when the database cannot be opened.
 */
export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const db = await openDb({ ...opts, pgliteTemplate: opts.pgliteTemplate ?? (process.env.PGLITE_TEMPLATE || undefined) });
  try {
    await migrate(db);
    if (db.hasVector) await prepareVectorColumn(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return createStore(db, { vector: db.hasVector, apiKeySecret: opts.apiKeySecret });
}
