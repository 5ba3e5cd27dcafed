/**
 * Migration 15: a message while the session runs (docs/ARCHITECTURE.md, "Messages while a session
 * runs"). `agent_message_policies` keeps each agent's `message_policy` (absent: reject);
 * `session_message_queue` keeps the messages enqueued behind a session's running turn, in order,
 * with the run id each will start as (chosen when it is queued, so a start repeated after a crash
 * finds the same run and never makes a second one).
 */
import type { Migration } from './releasedMigrations';

export const MESSAGE_QUEUE_MIGRATION: Migration = {
  version: 15,
  name: 'message policies of agents, and the messages queued behind a running session turn',
  statements: [
    `CREATE TABLE agent_message_policies (
      canvas_id text PRIMARY KEY,
      tenant_id text NOT NULL,
      policy text NOT NULL CHECK (policy IN ('reject', 'enqueue', 'interrupt', 'steer')),
      update_time double precision NOT NULL
    )`,
    `CREATE TABLE session_message_queue (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      session_id text NOT NULL,
      canvas_id text NOT NULL,
      seq bigserial NOT NULL,
      run_id text NOT NULL UNIQUE,
      request json NOT NULL,
      create_time double precision NOT NULL,
      taken_time double precision,
      done_time double precision,
      error text
    )`,
    'CREATE INDEX session_message_queue_waiting ON session_message_queue (session_id, seq) WHERE done_time IS NULL',
  ],
};
