/**
 * Migration 13: time travel (docs/ARCHITECTURE.md, "Time travel"). `run_snapshots` keeps a run's
 * state as it stood before each batch it first ran (what a fork restarts from, written with the
 * run's events by local activities, never through workflow history); `run_travel` says which
 * run a fork, rerun or replay came from, which components it reused and what that saved.
 */
import type { Migration } from './releasedMigrations';

export const TRAVEL_MIGRATION: Migration = {
  version: 13,
  name: 'time travel: batch snapshots of runs, and where forked runs came from',
  statements: [
    `CREATE TABLE run_snapshots (
      run_id text NOT NULL,
      position int NOT NULL,
      components json NOT NULL,
      state json NOT NULL,
      create_time double precision NOT NULL,
      PRIMARY KEY (run_id, position)
    )`,
    `CREATE TABLE run_travel (
      run_id text PRIMARY KEY,
      tenant_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('fork', 'rerun', 'replay')),
      source_run_id text NOT NULL,
      from_component text,
      reused json NOT NULL,
      savings json NOT NULL,
      create_time double precision NOT NULL
    )`,
    'CREATE INDEX run_travel_by_source ON run_travel (source_run_id)',
    // A run's tool calls as its Temporal history recorded them, by component and call order: what a replay with tools frozen answers.
    `CREATE TABLE run_call_journal (
      run_id text NOT NULL,
      component_id text NOT NULL,
      idx int NOT NULL,
      activity text NOT NULL,
      ok boolean NOT NULL,
      result json,
      PRIMARY KEY (run_id, component_id, idx)
    )`,
  ],
};
