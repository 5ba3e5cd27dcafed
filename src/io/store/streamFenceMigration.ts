/**
 * Migration 10: the attempt that owns each stream slot (a streaming call's tokens at (run, seq)).
 * A retried call claims its slot before it writes; every token write checks the claim in the
 * same statement, under the row's lock, so an earlier attempt that is stalled rather than dead
 * (its worker frozen past the heartbeat timeout) cannot write into the retry's text. Tokens also
 * carry the attempt that wrote them (null for everything written before, and for engine events).
 */
import type { Migration } from './releasedMigrations';

export const STREAM_FENCE_MIGRATION: Migration = {
  version: 10,
  name: 'stream slots fenced by attempt',
  statements: [
    `CREATE TABLE run_stream_slots (
      run_id text NOT NULL,
      seq int NOT NULL,
      attempt int NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`,
    'ALTER TABLE run_events ADD COLUMN attempt int',
  ],
};
