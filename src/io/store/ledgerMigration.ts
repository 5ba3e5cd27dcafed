/**
 * Migration 14: the cost ledger. One row per attempt of a model call (tokens as the provider
 * reported them, the price applied, whether it was a retry), and one row per finished call whose
 * result a replay reused instead of calling the model again ("what durability saved").
 * `day` is the UTC day (YYYY-MM-DD) the call ended, so a tenant's daily budget is one indexed sum.
 * And the provider windows PROVIDER_LIMITS are counted in, shared by every worker.
 */
import type { Migration } from './releasedMigrations';

export const LEDGER_MIGRATION: Migration = {
  version: 14,
  name: 'Cost ledger: model calls with tokens, cost and attempt; calls a replay reused; provider rate windows',
  statements: [
    `CREATE TABLE model_calls (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      run_id text NOT NULL,
      root_run_id text NOT NULL,
      session_id text,
      canvas_id text,
      node_id text,
      model text NOT NULL,
      prompt_tokens bigint NOT NULL,
      completion_tokens bigint NOT NULL,
      usage_reported boolean NOT NULL,
      cost double precision NOT NULL,
      priced boolean NOT NULL,
      attempt int NOT NULL,
      retry boolean NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('ok', 'failed')),
      day text NOT NULL,
      create_time double precision NOT NULL
    )`,
    'CREATE INDEX model_calls_root_run ON model_calls (root_run_id)',
    'CREATE INDEX model_calls_tenant_day ON model_calls (tenant_id, day)',
    `CREATE TABLE model_call_reuses (
      run_id text NOT NULL,
      call_id text NOT NULL,
      tenant_id text NOT NULL,
      node_id text,
      model text NOT NULL,
      prompt_tokens bigint NOT NULL,
      completion_tokens bigint NOT NULL,
      day text NOT NULL,
      create_time double precision NOT NULL,
      PRIMARY KEY (run_id, call_id)
    )`,
    'CREATE INDEX model_call_reuses_tenant_day ON model_call_reuses (tenant_id, day)',
    // PROVIDER_LIMITS: requests and tokens taken per provider key and clock minute, by every worker.
    `CREATE TABLE provider_windows (
      key text NOT NULL,
      minute bigint NOT NULL,
      requests int NOT NULL,
      tokens bigint NOT NULL,
      PRIMARY KEY (key, minute)
    )`,
  ],
};
