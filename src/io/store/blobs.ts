/** Large values a run produces (long tool results), kept out of workflow history. */
import { newId } from './time';
import type { Queryable, Store } from './contract';

export function blobsRepository(db: Queryable): Store['blobs'] {
  return {
    async put(runId, content) {
      const id = newId();
      // PostgreSQL text cannot hold NUL characters (some scraped pages carry them).
      await db.query('INSERT INTO blobs (id, run_id, content, create_time) VALUES ($1, $2, $3, $4)', [id, runId, content.split('\u0000').join(''), Date.now()]);
      return id;
    },
    async get(id) {
      const result = await db.query<{ content: string }>('SELECT content FROM blobs WHERE id = $1', [id]);
      return result.rows[0]?.content ?? null;
    },
    async getMany(ids) {
      if (ids.length === 0) return new Map();
      const result = await db.query<{ id: string; content: string }>('SELECT id, content FROM blobs WHERE id = ANY($1::text[])', [ids]);
      return new Map(result.rows.map((r) => [r.id, r.content]));
    },
    async deleteForRun(runId) {
      await db.query('DELETE FROM blobs WHERE run_id = $1', [runId]);
    },
  };
}
