/**
 * Tenant admission (admissionTypes.ts). A run counts toward its tenant's cap while its row is
 * `running` and admitted: a paused run (a form waiting for days) holds no place. Every decision
 * takes a per-tenant advisory lock first, so concurrent starts and ends on many processes never
 * admit more than the cap; the lock is taken in its own statement so the counts after it see every
 * decision made before.
 */
import type { Db, Queryable } from './dbContract';
import type { Admission, AdmissionStore, AdmissionTurn } from './admissionTypes';

/** The advisory lock class of the admission's per-tenant lock (the second key is the tenant's hash). */
const ADMISSION_LOCK_CLASS = 21;

/** The tenant's runs waiting before the run `$2` (in start order). */
async function turnOf(tx: Queryable, tenantId: string, runId: string): Promise<AdmissionTurn> {
  const r = await tx.query<{ admission: Admission | null; ahead: number }>(
    `SELECT admission, (SELECT count(*)::int FROM runs w WHERE w.tenant_id = $1 AND w.status = 'running' AND w.admission = 'waiting'
       AND (w.create_time, w.id) < (runs.create_time, runs.id)) AS ahead
     FROM runs WHERE id = $2`,
    [tenantId, runId],
  );
  const row = r.rows[0];
  // A row that is gone or never gated has nothing to wait for.
  return row?.admission === 'waiting' ? { admitted: false, ahead: row.ahead } : { admitted: true, ahead: 0 };
}

/** Admitted runs of the tenant that are running (the run `$2` itself excluded). */
const IN_FLIGHT = `SELECT count(*)::int FROM runs WHERE tenant_id = $1 AND status = 'running' AND admission = 'admitted' AND id <> $2`;

async function locked<T>(db: Db, tenantId: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADMISSION_LOCK_CLASS, tenantId]);
    return fn(tx);
  });
}

export function admissionRepository(db: Db): AdmissionStore {
  return {
    enter: ({ tenantId, runId, cap, now }) =>
      locked(db, tenantId, async (tx) => {
        await tx.query(
          `UPDATE runs SET admission_time = $4, admission = CASE
             WHEN (${IN_FLIGHT}) < $3
               AND NOT EXISTS (SELECT 1 FROM runs w WHERE w.tenant_id = $1 AND w.status = 'running' AND w.admission = 'waiting' AND w.id <> $2)
             THEN 'admitted' ELSE 'waiting' END
           WHERE id = $2 AND tenant_id = $1 AND admission IS NULL`,
          [tenantId, runId, cap, now],
        );
        // Decided now or before (a retried start): that decision stands.
        return turnOf(tx, tenantId, runId);
      }),
    claim: ({ tenantId, runId, cap, now }) =>
      locked(db, tenantId, async (tx) => {
        // Its turn: room under the cap, and no run of the tenant waiting longer.
        await tx.query(
          `UPDATE runs SET admission = 'admitted', admission_time = $4
           WHERE id = $2 AND tenant_id = $1 AND admission = 'waiting'
             AND (${IN_FLIGHT}) < $3
             AND NOT EXISTS (
               SELECT 1 FROM runs w WHERE w.tenant_id = $1 AND w.status = 'running' AND w.admission = 'waiting'
                 AND (w.create_time, w.id) < (runs.create_time, runs.id))`,
          [tenantId, runId, cap, now],
        );
        return turnOf(tx, tenantId, runId);
      }),
    admitWaiting: ({ tenantId, cap, now }) =>
      locked(db, tenantId, async (tx) => {
        const r = await tx.query<{ workflow_id: string }>(
          `UPDATE runs SET admission = 'admitted', admission_time = $3
           WHERE id IN (
             SELECT id FROM runs
             WHERE tenant_id = $1 AND status = 'running' AND admission = 'waiting'
             ORDER BY create_time, id
             LIMIT GREATEST(0, $2 - (SELECT count(*) FROM runs WHERE tenant_id = $1 AND status = 'running' AND admission = 'admitted'))
           )
           RETURNING workflow_id`,
          [tenantId, cap, now],
        );
        return r.rows.map((row) => row.workflow_id);
      }),
    async waitingSince(runId) {
      const r = await db.query<{ admission_time: number }>(`SELECT admission_time FROM runs WHERE id = $1 AND status = 'running' AND admission = 'waiting'`, [
        runId,
      ]);
      return r.rows[0] ? Number(r.rows[0].admission_time) : null;
    },
  };
}
