/**
 * Migration 9: the runs list (GET /api/v1/runs: a tenant's runs, newest first, paged) read the
 * whole tenant's runs and sorted them; with an index in its order it reads one page. A burst of
 * starts adds hundreds of rows a second, so the list grows fast.
 */
import type { Migration } from './releasedMigrations';

export const RUNS_LIST_MIGRATION: Migration = {
  version: 9,
  name: "runs list: a tenant's runs newest first by index",
  statements: ['CREATE INDEX runs_tenant_created_idx ON runs (tenant_id, create_time DESC, id DESC)'],
};
