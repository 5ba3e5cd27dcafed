/**
 * Migration 16: model call traces. One row per attempt of a model call (the id is the cost
 * ledger's, `model_calls.id`): what was sent (messages, redacted and folded; files by reference),
 * the model and its parameters, when the attempt started, how long it waited for provider
 * capacity, its time to first token and duration, the answer, tokens, cost and error. Kept here
 * rather than in workflow history, which only carries the call's result (issue 36).
 */
import type { Migration } from './releasedMigrations';

export const CALL_TRACE_MIGRATION: Migration = {
  version: 16,
  name: 'Model call traces: messages sent, parameters, timing, tokens, cost and error per attempt',
  statements: [
    `CREATE TABLE model_call_traces (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      run_id text NOT NULL,
      node_id text,
      activity_id text NOT NULL,
      model text NOT NULL,
      attempt int NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('ok', 'failed')),
      request jsonb NOT NULL,
      response jsonb,
      error text,
      started_at double precision NOT NULL,
      capacity_wait_ms double precision NOT NULL,
      first_token_ms double precision,
      duration_ms double precision NOT NULL,
      prompt_tokens bigint NOT NULL,
      completion_tokens bigint NOT NULL,
      usage_reported boolean NOT NULL,
      cost double precision NOT NULL,
      priced boolean NOT NULL
    )`,
    'CREATE INDEX model_call_traces_run ON model_call_traces (tenant_id, run_id, started_at)',
  ],
};
