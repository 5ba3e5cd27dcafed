/**
 * The schema, as an ordered list of migrations kept in code so that the build needs no SQL files.
 * A migration is a list of single statements because PGlite's `query` runs one statement at a
 * time. Never edit a released migration: add a new one, in its own file, listed below.
 */
import type { Db } from './contract';
import { MEMORY_MIGRATION } from './memoryMigration';
import { MESSAGE_QUEUE_MIGRATION } from './messageQueueMigration';
import { LEDGER_MIGRATION } from './ledgerMigration';
import { CALL_TRACE_MIGRATION } from './callTraceMigration';
import { CALL_KIND_MIGRATION } from './callKindMigration';
import { PIPELINE_MIGRATION } from './pipelineMigration';
import { PROVISIONED_KEYS_MIGRATION } from './provisionedKeysMigration';
import { RELEASED_MIGRATIONS, type Migration } from './releasedMigrations';
import { RUN_CHANGES_MIGRATION } from './runChangesMigration';
import { RUNS_LIST_MIGRATION } from './runsListMigration';
import { STREAM_FENCE_MIGRATION } from './streamFenceMigration';
import { TRAVEL_MIGRATION } from './travelMigration';
import { TRAVEL_ITEM_MIGRATION } from './travelItemMigration';
import { ADMISSION_MIGRATION } from './admissionMigration';

export type { Migration };

/** Arbitrary constant shared by every process of this app: serializes concurrent migrations. */
const MIGRATION_LOCK_KEY = 7_215_426_148;

/** Every migration in order: the released ones, then each later one from its own file. */
export const MIGRATIONS: readonly Migration[] = [
  ...RELEASED_MIGRATIONS,
  PIPELINE_MIGRATION,
  RUNS_LIST_MIGRATION,
  STREAM_FENCE_MIGRATION,
  PROVISIONED_KEYS_MIGRATION,
  MEMORY_MIGRATION,
  TRAVEL_MIGRATION,
  LEDGER_MIGRATION,
  MESSAGE_QUEUE_MIGRATION,
  CALL_TRACE_MIGRATION,
  RUN_CHANGES_MIGRATION,
  TRAVEL_ITEM_MIGRATION,
  CALL_KIND_MIGRATION,
  ADMISSION_MIGRATION,
];

/**
 * Applies the pending migrations, each in its own transaction, and returns the versions applied.
 * Every transaction first takes a transaction-scoped advisory lock, so processes starting at the
 * same time apply each migration exactly once (the loser sees it recorded and skips it).
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version int PRIMARY KEY,
        name text NOT NULL,
        applied_at double precision NOT NULL
      )`);
      const existing = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (existing.rows.length > 0) return false;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
