/**
 * Migration 21: tenant admission (TENANT_MAX_RUNS, docs/ARCHITECTURE.md, "Provider limits and
 * fairness"). A run started while its tenant already has that many runs in flight waits, durably,
 * as its row: `admission` says whether it was admitted or waits, `admission_start` keeps what its
 * workflow starts with until it has been started. Null for runs started without a cap and for
 * every row before it.
 */
import type { Migration } from './releasedMigrations';

export const ADMISSION_MIGRATION: Migration = {
  version: 21,
  name: "Tenant admission: runs in flight per tenant, and the runs waiting for their tenant's capacity",
  statements: [
    `ALTER TABLE runs ADD COLUMN admission text CHECK (admission IN ('admitted', 'waiting'))`,
    // Since when the run waits (admission 'waiting'), or when it was admitted.
    'ALTER TABLE runs ADD COLUMN admission_time double precision',
    // The run's start (api/services/runLauncher.ts, RecordedStart) while its workflow is not started.
    'ALTER TABLE runs ADD COLUMN admission_start json',
    `CREATE INDEX runs_tenant_admission_idx ON runs (tenant_id, admission, create_time) WHERE admission IS NOT NULL AND status = 'running'`,
  ],
};
