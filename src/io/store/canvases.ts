/** Canvases (RAGFlow's user_canvas) and their saved versions, always scoped by tenant. */
import { AppError } from '../../errors';
import { SqlParams, jsonParam, orderBy, pageClause } from './sql';
import { newId, stampNow } from './time';
import type { CanvasRecord, CanvasVersionRecord, Db, Store } from './contract';

const CANVAS_COLUMNS =
  'id, tenant_id, title, description, avatar, canvas_type, canvas_category, dsl, version_id, create_time, update_time, create_date, update_date';
const VERSION_COLUMNS = 'v.id, v.user_canvas_id, v.title, v.dsl, v.release, v.create_time, v.update_time, v.create_date, v.update_date';
// Titles sort case-insensitively, as on RAGFlow's MySQL, and the same under any collation (for ASCII).
const CANVAS_ORDER_COLUMNS: Record<string, string> = { create_time: 'create_time', update_time: 'update_time', title: 'lower(title)' };

const DEFAULT_CATEGORY = 'agent_canvas';
const UNIQUE_TITLE_INDEX = 'canvases_tenant_category_title_key';

/** RAGFlow's answer to a second canvas with the same title (any case) in the tenant's category. */
function duplicateTitle(err: unknown, title: string | undefined): unknown {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  const onTitle = e.constraint === UNIQUE_TITLE_INDEX || (typeof e.message === 'string' && e.message.includes(UNIQUE_TITLE_INDEX));
  return e.code === '23505' && onTitle ? new AppError('DUPLICATE', `${title ?? ''} already exists.`) : err;
}

/** The canvases repository over `db`. */
export function canvasesRepository(db: Db): Store['canvases'] {
  return {
    create(input) {
      const now = stampNow();
      const id = newId();
      const versionId = newId();
      const dsl = jsonParam(input.dsl);
      return db
        .transaction(async (tx) => {
          const created = await tx.query<CanvasRecord>(
            `INSERT INTO canvases (id, tenant_id, title, description, avatar, canvas_type, canvas_category, dsl, version_id,
                                 create_time, update_time, create_date, update_date)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json, $9, $10, $10, $11, $11)
           RETURNING ${CANVAS_COLUMNS}`,
            [
              id,
              input.tenantId,
              input.title,
              input.description ?? null,
              input.avatar ?? null,
              input.canvasType ?? null,
              input.canvasCategory ?? DEFAULT_CATEGORY,
              dsl,
              versionId,
              now.time,
              now.date,
            ],
          );
          await tx.query(
            `INSERT INTO canvas_versions (id, user_canvas_id, title, dsl, release, create_time, update_time, create_date, update_date)
           VALUES ($1, $2, $3, $4::json, false, $5, $5, $6, $6)`,
            [versionId, id, input.title, dsl, now.time, now.date],
          );
          return created.rows[0]!;
        })
        .catch((err: unknown) => {
          throw duplicateTitle(err, input.title);
        });
    },

    async get(tenantId, id) {
      const result = await db.query<CanvasRecord>(`SELECT ${CANVAS_COLUMNS} FROM canvases WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return result.rows[0] ?? null;
    },

    async getById(id) {
      const result = await db.query<CanvasRecord>(`SELECT ${CANVAS_COLUMNS} FROM canvases WHERE id = $1`, [id]);
      return result.rows[0] ?? null;
    },

    async findByTitle(tenantId, title) {
      const result = await db.query<CanvasRecord>(
        `SELECT ${CANVAS_COLUMNS} FROM canvases WHERE tenant_id = $1 AND lower(title) = lower($2)
         ORDER BY create_time, id LIMIT 1`,
        [tenantId, title],
      );
      return result.rows[0] ?? null;
    },

    async list(tenantId, filter) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`];
      // strpos rather than LIKE: '%' and '_' typed by a user are plain characters here.
      if (filter.keywords) where.push(`strpos(lower(title), lower(${params.add(filter.keywords)})) > 0`);
      if (filter.id) where.push(`id = ${params.add(filter.id)}`);
      if (filter.title) where.push(`lower(title) = lower(${params.add(filter.title)})`);
      if (filter.categories && filter.categories.length > 0) where.push(`canvas_category IN (${filter.categories.map((c) => params.add(c)).join(', ')})`);
      if (filter.canvasType) where.push(`canvas_type = ${params.add(filter.canvasType)}`);
      const whereSql = where.join(' AND ');
      const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM canvases WHERE ${whereSql}`, params.values());
      const page = pageClause(filter, params);
      const items = await db.query<CanvasRecord>(
        `SELECT ${CANVAS_COLUMNS} FROM canvases WHERE ${whereSql} ${orderBy(filter, CANVAS_ORDER_COLUMNS, 'update_time')} ${page}`,
        params.values(),
      );
      return { items: items.rows, total: count.rows[0]?.total ?? 0 };
    },

    update(tenantId, id, patch) {
      const now = stampNow();
      return db
        .transaction(async (tx) => {
          const params = new SqlParams();
          const sets: string[] = [];
          if (patch.title !== undefined) sets.push(`title = ${params.add(patch.title)}`);
          if (patch.description !== undefined) sets.push(`description = ${params.add(patch.description)}`);
          if (patch.avatar !== undefined) sets.push(`avatar = ${params.add(patch.avatar)}`);
          if (patch.canvasType !== undefined) sets.push(`canvas_type = ${params.add(patch.canvasType)}`);
          const dslJson = patch.dsl !== undefined ? jsonParam(patch.dsl) : null;
          const versionId = dslJson !== null ? newId() : null;
          if (dslJson !== null && versionId) {
            sets.push(`dsl = ${params.add(dslJson)}::json`, `version_id = ${params.add(versionId)}`);
          }
          sets.push(`update_time = ${params.add(now.time)}`, `update_date = ${params.add(now.date)}`);
          const updated = await tx.query<CanvasRecord>(
            `UPDATE canvases SET ${sets.join(', ')} WHERE tenant_id = ${params.add(tenantId)} AND id = ${params.add(id)}
           RETURNING ${CANVAS_COLUMNS}`,
            params.values(),
          );
          const canvas = updated.rows[0];
          if (!canvas) return null;
          if (dslJson !== null && versionId) {
            await tx.query(
              `INSERT INTO canvas_versions (id, user_canvas_id, title, dsl, release, create_time, update_time, create_date, update_date)
             VALUES ($1, $2, $3, $4::json, false, $5, $5, $6, $6)`,
              [versionId, id, canvas.title, dslJson, now.time, now.date],
            );
          }
          return canvas;
        })
        .catch((err: unknown) => {
          throw duplicateTitle(err, patch.title);
        });
    },

    async delete(tenantId, id) {
      // Versions and sessions go with the canvas (ON DELETE CASCADE).
      const result = await db.query('DELETE FROM canvases WHERE tenant_id = $1 AND id = $2 RETURNING id', [tenantId, id]);
      return result.rows.length > 0;
    },

    async listVersions(tenantId, canvasId) {
      const result = await db.query<CanvasVersionRecord>(
        `SELECT ${VERSION_COLUMNS} FROM canvas_versions v JOIN canvases c ON c.id = v.user_canvas_id
         WHERE c.tenant_id = $1 AND v.user_canvas_id = $2
         ORDER BY v.update_time DESC, v.ord DESC`,
        [tenantId, canvasId],
      );
      return result.rows;
    },

    async getVersion(tenantId, canvasId, versionId) {
      const result = await db.query<CanvasVersionRecord>(
        `SELECT ${VERSION_COLUMNS} FROM canvas_versions v JOIN canvases c ON c.id = v.user_canvas_id
         WHERE c.tenant_id = $1 AND v.user_canvas_id = $2 AND v.id = $3`,
        [tenantId, canvasId, versionId],
      );
      return result.rows[0] ?? null;
    },
  };
}
