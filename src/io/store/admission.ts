/**
 * Tenant admission (admissionTypes.ts). A run counts toward its tenant's cap while its row is
 * `running` and admitted: a paused run (a form waiting for days) holds no place. Every decision
 * takes a per-tenant advisory lock first, so concurrent starts and ends on many processes never
 * admit more than the cap; the lock is taken in its own statement so the counts after it see every
 * decision made before.
 */
import type { Db, Queryable } from './dbContract';
import type { AdmissionStore, AdmittedStart } from './admissionTypes';
import { jsonParam } from './sql';

/** The advisory lock class of the admission's per-tenant lock (the second key is the tenant's hash). */
const ADMISSION_LOCK_CLASS = 21;

/** Admitted runs of the tenant that are running (the run `$2` itself excluded). */
const IN_FLIGHT = `SELECT count(*)::int FROM runs WHERE tenant_id = $1 AND status = 'running' AND admission = 'admitted' AND id <> $2`;

async function locked<T>(db: Db, tenantId: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADMISSION_LOCK_CLASS, tenantId]);
    return fn(tx);
  });
}

const toStart = (r: { id: string; tenant_id: string; admission_start: unknown }): AdmittedStart => ({
  runId: r.id,
  tenantId: r.tenant_id,
  start: r.admission_start,
});

export function admissionRepository(db: Db): AdmissionStore {
  return {
    enter: ({ tenantId, runId, cap, now, start }) =>
      locked(db, tenantId, async (tx) => {
        await tx.query(
          `UPDATE runs SET admission_time = $4, admission = CASE
             WHEN (${IN_FLIGHT}) < $3
               AND NOT EXISTS (SELECT 1 FROM runs w WHERE w.tenant_id = $1 AND w.status = 'running' AND w.admission = 'waiting' AND w.id <> $2)
             THEN 'admitted' ELSE 'waiting' END
           WHERE id = $2 AND tenant_id = $1 AND admission IS NULL`,
          [tenantId, runId, cap, now],
        );
        // Decided now or before (a retried start): that decision stands; a waiting run keeps its start.
        await tx.query(`UPDATE runs SET admission_start = $2::json WHERE id = $1 AND admission = 'waiting' AND admission_start IS NULL`, [
          runId,
          jsonParam(start),
        ]);
        const row = await tx.query<{ admission: string | null; ahead: number }>(
          `SELECT admission, (SELECT count(*)::int FROM runs w WHERE w.tenant_id = $1 AND w.status = 'running' AND w.admission = 'waiting'
             AND (w.create_time, w.id) < (runs.create_time, runs.id)) AS ahead
           FROM runs WHERE id = $2`,
          [tenantId, runId],
        );
        const found = row.rows[0];
        return found?.admission === 'waiting' ? { admitted: false, ahead: found.ahead } : { admitted: true, ahead: 0 };
      }),
    admitWaiting: ({ tenantId, cap, now }) =>
      locked(db, tenantId, async (tx) => {
        const r = await tx.query<{ id: string; tenant_id: string; admission_start: unknown; create_time: number }>(
          `UPDATE runs SET admission = 'admitted', admission_time = $3
           WHERE id IN (
             SELECT id FROM runs
             WHERE tenant_id = $1 AND status = 'running' AND admission = 'waiting'
             ORDER BY create_time, id
             LIMIT GREATEST(0, $2 - (SELECT count(*) FROM runs WHERE tenant_id = $1 AND status = 'running' AND admission = 'admitted'))
           )
           RETURNING id, tenant_id, admission_start, create_time`,
          [tenantId, cap, now],
        );
        const left = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM runs WHERE tenant_id = $1 AND status = 'running' AND admission = 'waiting'`,
          [tenantId],
        );
        // In start order: the oldest waiting run is started first.
        return { admitted: r.rows.sort((a, b) => Number(a.create_time) - Number(b.create_time)).map(toStart), waiting: left.rows[0]?.n ?? 0 };
      }),
    async started(runId) {
      await db.query('UPDATE runs SET admission_start = NULL WHERE id = $1', [runId]);
    },
    async unstarted({ before, limit }) {
      const r = await db.query<{ id: string; tenant_id: string; admission_start: unknown }>(
        `SELECT id, tenant_id, admission_start FROM runs
         WHERE admission = 'admitted' AND admission_start IS NOT NULL AND status = 'running' AND admission_time < $1
         ORDER BY admission_time LIMIT $2`,
        [before, limit],
      );
      return r.rows.map(toStart);
    },
    async waitingTenants(limit) {
      const r = await db.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM runs WHERE status = 'running' AND admission = 'waiting' LIMIT $1`, [
        limit,
      ]);
      return r.rows.map((row) => row.tenant_id);
    },
    async waitingSince(runId) {
      const r = await db.query<{ admission_time: number }>(`SELECT admission_time FROM runs WHERE id = $1 AND status = 'running' AND admission = 'waiting'`, [
        runId,
      ]);
      return r.rows[0] ? Number(r.rows[0].admission_time) : null;
    },
    async cancelWaiting(runId, reason, now) {
      const r = await db.query(
        `UPDATE runs SET status = 'canceled', error = $2, admission_start = NULL, update_time = $3, finish_time = $3
         WHERE id = $1 AND status = 'running' AND admission = 'waiting'
         RETURNING id`,
        [runId, reason, now],
      );
      return r.rows.length > 0;
    },
  };
}
