/**
 * Migration 18: the run changes feed. Every run row that is inserted or changes status adds one
 * row here (a trigger on `runs`, so every writer in every process is covered without code of its
 * own), numbered by one sequence, and wakes the tenant's listeners (`pg_notify('run_changes',
 * tenant_id)`). `GET /api/v1/runs/stream` sends these rows and resumes after a Last-Event-ID.
 *
 * The trigger is a deferred constraint trigger: it runs at commit, takes a per-tenant advisory
 * lock (held to the commit just after it) and only then draws its number. So a tenant's numbers
 * become visible in order — a reader that saw number n never later finds a smaller one — which a
 * plain sequence does not give (transactions commit in another order than they drew numbers).
 * The lock is the last one its transaction takes, so it cannot close a deadlock cycle.
 */
import type { Migration } from './releasedMigrations';

/** The NOTIFY channel; the payload is the tenant id. */
export const RUN_CHANGES_CHANNEL = 'run_changes';
/** The advisory lock class of the feed's per-tenant lock (the second key is the tenant's hash). */
export const RUN_CHANGES_LOCK_CLASS = 18;

export const RUN_CHANGES_MIGRATION: Migration = {
  version: 18,
  name: 'Run changes feed: one numbered row per run start and status change, for the runs list stream',
  statements: [
    `CREATE TABLE run_changes (
      id bigserial PRIMARY KEY,
      tenant_id text NOT NULL,
      run_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('started', 'status', 'ended')),
      status text NOT NULL,
      canvas_id text NOT NULL,
      session_id text,
      at double precision NOT NULL
    )`,
    `CREATE INDEX run_changes_tenant_idx ON run_changes (tenant_id, id)`,
    `CREATE FUNCTION note_run_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
        RETURN NULL;
      END IF;
      PERFORM pg_advisory_xact_lock(${RUN_CHANGES_LOCK_CLASS}, hashtext(NEW.tenant_id));
      INSERT INTO run_changes (tenant_id, run_id, kind, status, canvas_id, session_id, at)
      VALUES (
        NEW.tenant_id, NEW.id,
        CASE WHEN TG_OP = 'INSERT' THEN 'started'
             WHEN NEW.status IN ('finished', 'failed', 'canceled') THEN 'ended'
             ELSE 'status' END,
        NEW.status, NEW.canvas_id, NEW.session_id, NEW.update_time);
      PERFORM pg_notify('${RUN_CHANGES_CHANNEL}', NEW.tenant_id);
      RETURN NULL;
    END $$`,
    `CREATE CONSTRAINT TRIGGER runs_changed AFTER INSERT OR UPDATE OF status ON runs
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION note_run_change()`,
  ],
};
