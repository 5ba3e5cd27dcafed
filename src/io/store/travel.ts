/** Time travel's rows: runs' batch snapshots, and where forked runs came from (migration 13). */
import type { RunState } from '../../core/engine/state';
import type { SnapshotEntry } from '../../core/engine/fork';
import { jsonParam } from './sql';
import type { Queryable } from './dbContract';
import type { JournalEntry, TravelRecord, TravelStore } from './travelTypes';

export function travelRepository(db: Queryable): TravelStore {
  return {
    async putJournal(runId, entries) {
      for (const e of entries) {
        await db.query(
          `INSERT INTO run_call_journal (run_id, component_id, idx, activity, ok, result) VALUES ($1, $2, $3, $4, $5, $6::json)
           ON CONFLICT (run_id, component_id, idx) DO NOTHING`,
          [runId, e.component_id, e.idx, e.activity, e.ok, jsonParam(e.result ?? null)],
        );
      }
    },
    async journalEntry(runId, componentId, idx) {
      const r = await db.query<JournalEntry>(
        'SELECT component_id, idx, activity, ok, result FROM run_call_journal WHERE run_id = $1 AND component_id = $2 AND idx = $3',
        [runId, componentId, idx],
      );
      return r.rows[0] ?? null;
    },
    async putSnapshots(runId, snapshots) {
      // A statement per 1,000 (3 parameters each, under PostgreSQL's 65,535): a run's end writes all its snapshots at once.
      const now = Date.now();
      for (let from = 0; from < snapshots.length; from += 1000) {
        const params: unknown[] = [runId, now];
        const rows = snapshots.slice(from, from + 1000).map((s) => {
          params.push(s.position, jsonParam(s.components), jsonParam(s.state));
          const n = params.length;
          return `($1, $${n - 2}, $${n - 1}::json, $${n}::json, $2)`;
        });
        await db.query(
          `INSERT INTO run_snapshots (run_id, position, components, state, create_time) VALUES ${rows.join(', ')}
           ON CONFLICT (run_id, position) DO NOTHING`,
          params,
        );
      }
    },
    async listSnapshots(runId) {
      const r = await db.query<SnapshotEntry>('SELECT position, components FROM run_snapshots WHERE run_id = $1 ORDER BY position', [runId]);
      return r.rows;
    },
    async getSnapshot(runId, position) {
      const r = await db.query<{ state: RunState }>('SELECT state FROM run_snapshots WHERE run_id = $1 AND position = $2', [runId, position]);
      return r.rows[0]?.state ?? null;
    },
    async copySnapshots(from, to, position) {
      await db.query(
        `INSERT INTO run_snapshots (run_id, position, components, state, create_time)
         SELECT $2, position, components, state, create_time FROM run_snapshots WHERE run_id = $1 AND position < $3
         ON CONFLICT (run_id, position) DO NOTHING`,
        [from, to, position],
      );
    },
    async record(e) {
      await db.query(
        `INSERT INTO run_travel (run_id, tenant_id, kind, source_run_id, from_component, from_item, reused, savings, create_time)
         VALUES ($1, $2, $3, $4, $5, $6, $7::json, $8::json, $9) ON CONFLICT (run_id) DO NOTHING`,
        [e.run_id, e.tenant_id, e.kind, e.source_run_id, e.from_component, e.from_item ?? null, jsonParam(e.reused), jsonParam(e.savings), e.create_time],
      );
    },
    async getMany(runIds) {
      if (runIds.length === 0) return new Map();
      const r = await db.query<TravelRecord>('SELECT * FROM run_travel WHERE run_id = ANY($1::text[])', [runIds]);
      return new Map(r.rows.map((row) => [row.run_id, row]));
    },
  };
}
