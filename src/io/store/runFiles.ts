/**
 * The one place a run's files live: uploads a run reads and files a run makes, their bytes and
 * (for documents) their parsed text, in the store's `run_files` table, so the API and every
 * worker see the same files whichever process wrote them. Every read names the tenant: a file of
 * another tenant is simply not found.
 */
import { newId } from './time';
import type { Queryable } from './dbContract';
import type { FileMeta, FileOrigin, FileStore } from './fileTypes';

const COLUMNS = 'id, tenant_id, origin, run_id, name, mime_type, size, text, create_time';

interface Row {
  id: string;
  tenant_id: string;
  origin: string;
  run_id: string | null;
  name: string;
  mime_type: string;
  size: string | number;
  text: string | null;
  create_time: number;
}

function toMeta(r: Row): FileMeta {
  return { ...r, origin: r.origin as FileOrigin, size: Number(r.size), create_time: Number(r.create_time) };
}

export function runFilesRepository(db: Queryable): FileStore {
  return {
    async put(f) {
      const id = newId();
      const now = Date.now();
      // PostgreSQL text cannot hold NUL characters.
      const text = f.text === undefined || f.text === null ? null : f.text.split('\u0000').join('');
      await db.query(
        `INSERT INTO run_files (id, tenant_id, origin, run_id, name, mime_type, size, content, text, create_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [id, f.tenantId, f.origin, f.runId ?? null, f.name, f.mimeType, f.content.byteLength, f.content, text, now],
      );
      return {
        id,
        tenant_id: f.tenantId,
        origin: f.origin,
        run_id: f.runId ?? null,
        name: f.name,
        mime_type: f.mimeType,
        size: f.content.byteLength,
        text,
        create_time: now,
      };
    },
    async meta(tenantId, id) {
      const r = await db.query<Row>(`SELECT ${COLUMNS} FROM run_files WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return r.rows[0] ? toMeta(r.rows[0]) : null;
    },
    async metas(tenantId, ids) {
      if (ids.length === 0) return new Map();
      const r = await db.query<Row>(`SELECT ${COLUMNS} FROM run_files WHERE tenant_id = $1 AND id = ANY($2::text[])`, [tenantId, ids]);
      return new Map(r.rows.map((row) => [row.id, toMeta(row)]));
    },
    async metasById(ids) {
      if (ids.length === 0) return new Map();
      const r = await db.query<Row>(`SELECT ${COLUMNS} FROM run_files WHERE id = ANY($1::text[])`, [ids]);
      return new Map(r.rows.map((row) => [row.id, toMeta(row)]));
    },
    async content(tenantId, id) {
      const r = await db.query<{ content: Uint8Array }>('SELECT content FROM run_files WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
      const c = r.rows[0]?.content;
      return c ? new Uint8Array(c) : null;
    },
    async contentById(id) {
      const r = await db.query<{ content: Uint8Array }>('SELECT content FROM run_files WHERE id = $1', [id]);
      const c = r.rows[0]?.content;
      return c ? new Uint8Array(c) : null;
    },
  };
}
