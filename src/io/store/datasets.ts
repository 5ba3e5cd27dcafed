/** Datasets and their documents (RAGFlow's knowledge bases), tenant-scoped. */
import type { DatasetRecord, DocumentRecord, KnowledgeStore } from './knowledgeTypes';
import { jsonParam, orderBy, pageClause, SqlParams } from './sql';
import { newId, stampNow } from './time';
import type { Queryable } from './contract';

// Counts are derived, so they can never drift from the rows they count.
const DATASET_COLUMNS = `d.id, d.tenant_id, d.name, d.description, d.avatar, d.embedding_model, d.chunk_method, d.parser_config, d.permission,
  d.pagerank, d.language, d.connectors, d.pipeline_id, d.create_time, d.update_time, d.create_date, d.update_date,
  (SELECT count(*)::int FROM documents x WHERE x.dataset_id = d.id) AS document_count,
  (SELECT coalesce(sum(x.chunk_count), 0)::int FROM documents x WHERE x.dataset_id = d.id) AS chunk_count,
  (SELECT coalesce(sum(x.token_count), 0)::int FROM documents x WHERE x.dataset_id = d.id) AS token_num`;
const DOCUMENT_COLUMNS = `id, dataset_id, tenant_id, name, type, size, run, progress, progress_msg, chunk_count, token_count, meta_fields,
  chunk_method, parser_config, status, process_begin_at, process_duration, create_time, update_time, create_date, update_date`;
const DATASET_ORDER = { create_time: 'd.create_time', update_time: 'd.update_time', name: 'd.name' };
const DOCUMENT_ORDER = { create_time: 'create_time', update_time: 'update_time', name: 'name', size: 'size' };

export function datasetsRepository(db: Queryable): KnowledgeStore['datasets'] {
  const get = async (tenantId: string, id: string) =>
    (await db.query<DatasetRecord>(`SELECT ${DATASET_COLUMNS} FROM datasets d WHERE d.tenant_id = $1 AND d.id = $2`, [tenantId, id])).rows[0] ?? null;
  return {
    async create(input) {
      const now = stampNow();
      const id = input.id ?? newId();
      await db.query(
        `INSERT INTO datasets (id, tenant_id, name, description, avatar, embedding_model, chunk_method, parser_config, create_time, update_time, create_date, update_date,
           permission, pagerank, language, pipeline_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9, $10, $10, $11, $12, $13, $14)`,
        [
          id,
          input.tenantId,
          input.name,
          input.description ?? null,
          input.avatar ?? null,
          input.embeddingModel,
          input.chunkMethod,
          jsonParam(input.parserConfig),
          now.time,
          now.date,
          input.permission ?? 'me',
          input.pagerank ?? 0,
          input.language ?? 'English',
          input.pipelineId ?? null,
        ],
      );
      return (await get(input.tenantId, id))!;
    },
    get,
    async find(tenantId, idOrName) {
      const r = await db.query<DatasetRecord>(
        `SELECT ${DATASET_COLUMNS} FROM datasets d WHERE d.tenant_id = $1 AND (d.id = $2 OR lower(d.name) = lower($2)) ORDER BY (d.id = $2) DESC LIMIT 1`,
        [tenantId, idOrName],
      );
      return r.rows[0] ?? null;
    },
    async list(tenantId, opts) {
      const params = new SqlParams();
      const where = [`d.tenant_id = ${params.add(tenantId)}`];
      if (opts.name) where.push(`lower(d.name) = lower(${params.add(opts.name)})`);
      if (opts.id) where.push(`d.id = ${params.add(opts.id)}`);
      if (opts.ids) where.push(`d.id = ANY(${params.add(opts.ids)}::text[])`);
      if (opts.pipelineId) where.push(`d.pipeline_id = ${params.add(opts.pipelineId)}`);
      const w = where.join(' AND ');
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM datasets d WHERE ${w}`, params.values())).rows[0]?.n ?? 0;
      const order = orderBy(opts, DATASET_ORDER, 'd.create_time').replace(/, id /, ', d.id ');
      const items = await db.query<DatasetRecord>(`SELECT ${DATASET_COLUMNS} FROM datasets d WHERE ${w} ${order} ${pageClause(opts, params)}`, params.values());
      return { items: items.rows, total };
    },
    async update(tenantId, id, patch) {
      const params = new SqlParams();
      const sets: string[] = [];
      if (patch.name !== undefined) sets.push(`name = ${params.add(patch.name)}`);
      if (patch.description !== undefined) sets.push(`description = ${params.add(patch.description)}`);
      if (patch.avatar !== undefined) sets.push(`avatar = ${params.add(patch.avatar)}`);
      if (patch.chunkMethod !== undefined) sets.push(`chunk_method = ${params.add(patch.chunkMethod)}`);
      if (patch.parserConfig !== undefined) sets.push(`parser_config = ${params.add(jsonParam(patch.parserConfig))}::jsonb`);
      if (patch.permission !== undefined) sets.push(`permission = ${params.add(patch.permission)}`);
      if (patch.pagerank !== undefined) sets.push(`pagerank = ${params.add(patch.pagerank)}`);
      if (patch.language !== undefined) sets.push(`language = ${params.add(patch.language)}`);
      if (patch.embeddingModel !== undefined) sets.push(`embedding_model = ${params.add(patch.embeddingModel)}`);
      if (patch.pipelineId !== undefined) sets.push(`pipeline_id = ${params.add(patch.pipelineId)}`);
      if (patch.connectors !== undefined) sets.push(`connectors = ${params.add(jsonParam(patch.connectors))}::jsonb`);
      const now = stampNow();
      sets.push(`update_time = ${params.add(now.time)}`, `update_date = ${params.add(now.date)}`);
      const r = await db.query(
        `UPDATE datasets SET ${sets.join(', ')} WHERE tenant_id = ${params.add(tenantId)} AND id = ${params.add(id)} RETURNING id`,
        params.values(),
      );
      return r.rows.length > 0 ? get(tenantId, id) : null;
    },
    async delete(tenantId, ids) {
      const r = await db.query<{ id: string }>('DELETE FROM datasets WHERE tenant_id = $1 AND id = ANY($2::text[]) RETURNING id', [tenantId, ids]);
      return r.rows.map((x) => x.id);
    },
  };
}

export function documentsRepository(db: Queryable): KnowledgeStore['documents'] {
  const get = async (tenantId: string, id: string) =>
    (await db.query<DocumentRecord>(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE tenant_id = $1 AND id = $2`, [tenantId, id])).rows[0] ?? null;
  return {
    async create(input) {
      const now = stampNow();
      const id = newId();
      await db.query(
        `INSERT INTO documents (id, dataset_id, tenant_id, name, type, size, meta_fields, create_time, update_time, create_date, update_date, chunk_method, parser_config)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $8, $9, $9, $10, $11::jsonb)`,
        [
          id,
          input.datasetId,
          input.tenantId,
          input.name,
          input.type,
          input.content.byteLength,
          jsonParam(input.metaFields ?? {}),
          now.time,
          now.date,
          input.chunkMethod ?? null,
          jsonParam(input.parserConfig ?? {}),
        ],
      );
      await db.query('INSERT INTO document_files (document_id, content) VALUES ($1, $2)', [id, input.content]);
      return (await get(input.tenantId, id))!;
    },
    get,
    async list(tenantId, datasetId, opts) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`, `dataset_id = ${params.add(datasetId)}`];
      if (opts.keywords) where.push(`strpos(lower(name), lower(${params.add(opts.keywords)})) > 0`);
      if (opts.id) where.push(`id = ${params.add(opts.id)}`);
      if (opts.name) where.push(`name = ${params.add(opts.name)}`);
      if (opts.ids) where.push(`id = ANY(${params.add(opts.ids)}::text[])`);
      if (opts.runs) where.push(`run = ANY(${params.add(opts.runs)}::text[])`);
      if (opts.suffixes) where.push(`type = ANY(${params.add(opts.suffixes)}::text[])`);
      const w = where.join(' AND ');
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM documents WHERE ${w}`, params.values())).rows[0]?.n ?? 0;
      const items = await db.query<DocumentRecord>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE ${w} ${orderBy(opts, DOCUMENT_ORDER, 'create_time')} ${pageClause(opts, params)}`,
        params.values(),
      );
      return { items: items.rows, total };
    },
    async content(id) {
      const r = await db.query<{ content: Uint8Array }>('SELECT content FROM document_files WHERE document_id = $1', [id]);
      const c = r.rows[0]?.content;
      return c ? new Uint8Array(c) : null;
    },
    async setProgress(id, p) {
      const params = new SqlParams();
      const sets: string[] = [];
      const now = stampNow();
      if (p.run !== undefined) sets.push(`run = ${params.add(p.run)}`);
      if (p.progress !== undefined) sets.push(`progress = ${params.add(p.progress)}`);
      if (p.msg !== undefined) sets.push(`progress_msg = ${params.add(p.msg)}`);
      if (p.chunkCount !== undefined) sets.push(`chunk_count = ${params.add(p.chunkCount)}`);
      if (p.tokenCount !== undefined) sets.push(`token_count = ${params.add(p.tokenCount)}`);
      if (p.begin) sets.push(`process_begin_at = ${params.add(now.time)}`, 'process_duration = 0');
      else if (p.run === 'DONE' || p.run === 'FAIL' || p.run === 'CANCEL')
        sets.push(`process_duration = coalesce((${params.add(now.time)} - process_begin_at) / 1000.0, 0)`);
      sets.push(`update_time = ${params.add(now.time)}`, `update_date = ${params.add(now.date)}`);
      const where = [`id = ${params.add(id)}`];
      if (p.unlessBegunAfter !== undefined)
        where.push(`(run <> 'RUNNING' OR process_begin_at IS NULL OR process_begin_at <= ${params.add(p.unlessBegunAfter)})`);
      await db.query(`UPDATE documents SET ${sets.join(', ')} WHERE ${where.join(' AND ')}`, params.values());
    },
    async update(tenantId, id, patch) {
      const params = new SqlParams();
      const sets: string[] = [];
      if (patch.name !== undefined) sets.push(`name = ${params.add(patch.name)}`);
      if (patch.metaFields !== undefined) sets.push(`meta_fields = ${params.add(jsonParam(patch.metaFields))}::jsonb`);
      if (patch.chunkMethod !== undefined) sets.push(`chunk_method = ${params.add(patch.chunkMethod)}`);
      if (patch.parserConfig !== undefined) sets.push(`parser_config = ${params.add(jsonParam(patch.parserConfig))}::jsonb`);
      if (patch.status !== undefined) sets.push(`status = ${params.add(patch.status)}`);
      if (sets.length === 0) return get(tenantId, id);
      const now = stampNow();
      sets.push(`update_time = ${params.add(now.time)}`, `update_date = ${params.add(now.date)}`);
      const r = await db.query(
        `UPDATE documents SET ${sets.join(', ')} WHERE tenant_id = ${params.add(tenantId)} AND id = ${params.add(id)} RETURNING id`,
        params.values(),
      );
      return r.rows.length > 0 ? get(tenantId, id) : null;
    },
    async delete(tenantId, datasetId, ids) {
      const r = await db.query<{ id: string }>('DELETE FROM documents WHERE tenant_id = $1 AND dataset_id = $2 AND id = ANY($3::text[]) RETURNING id', [
        tenantId,
        datasetId,
        ids,
      ]);
      return r.rows.map((x) => x.id);
    },
    async metas(tenantId, datasetIds) {
      const r = await db.query<{ id: string; meta_fields: Record<string, unknown> }>(
        'SELECT id, meta_fields FROM documents WHERE tenant_id = $1 AND dataset_id = ANY($2::text[])',
        [tenantId, datasetIds],
      );
      return r.rows;
    },
  };
}
