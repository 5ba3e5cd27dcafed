/**
 * Migration 11: the key `npm start` provisions (API_KEY, or the one it generated) is told apart
 * from keys made through the API, so that setting a new API_KEY revokes the one before it. A
 * replaced key is kept as a revoked row rather than deleted: the old value, still in some old
 * environment, can then never be provisioned again (a restarting old process fails to start
 * instead of revoking the new key).
 */
import type { Migration } from './releasedMigrations';

export const PROVISIONED_KEYS_MIGRATION: Migration = {
  version: 11,
  name: 'API keys: which key the server provisioned (API_KEY or generated), and when one was replaced',
  statements: ['ALTER TABLE api_keys ADD COLUMN provisioned_time double precision', 'ALTER TABLE api_keys ADD COLUMN revoked_time double precision'],
};
