/**
 * Chunks and their search on PostgreSQL/PGlite: candidates by vector similarity (pgvector's `<=>`
 * where the extension exists, else an exact dot product in SQL over the stored `real[]`, the
 * embeddings being normalized) and by full text (`tsvector`, OR of the query's terms), each up
 * to `top_k`, returned with their cosine similarity. Ranking is shared: src/io/knowledge/hybrid.ts.
 */
import { normalize } from '../text/localEmbedding';
import { tokenize } from '../text/tokens';
import type { ChunkHit, ChunkRecord, ChunkSearch, KnowledgeStore, NewChunk } from './knowledgeTypes';
import { SqlParams } from './sql';
import type { Db, Queryable } from './contract';

interface ChunkRow {
  id: string;
  content: string;
  document_id: string;
  document_name: string;
  dataset_id: string;
  section: string;
  position: number;
  vsim: number | null;
}

const SELECT = 'id, content, document_id, document_name, dataset_id, section, position';
const RECORD = `${SELECT}, tokens, important_keywords, questions, available, create_time`;

interface RecordRow extends ChunkRow {
  tokens: number;
  important_keywords: string[];
  questions: string[];
  available: boolean;
  create_time: number;
}

function toRecord(r: RecordRow): ChunkRecord {
  return {
    ...toHit(r),
    tokens: r.tokens,
    importantKeywords: r.important_keywords ?? [],
    questions: r.questions ?? [],
    available: r.available,
    createTime: r.create_time,
  };
}

function toHit(r: ChunkRow): ChunkHit {
  return {
    id: r.id,
    content: r.content,
    documentId: r.document_id,
    documentName: r.document_name,
    datasetId: r.dataset_id,
    section: r.section,
    position: r.position,
    vectorSimilarity: Number(r.vsim ?? 0),
  };
}

/** `a | b | c` over plain word terms ('simple' parser; CJK runs are left to the vector side). */
function tsQuery(query: string): string {
  const terms = [...new Set(tokenize(query).filter((t) => /^[\p{L}\p{N}]+$/u.test(t) && !/[\u3040-\u9fff\uac00-\ud7af]/u.test(t)))];
  return terms.slice(0, 32).join(' | ');
}

/** pgvector's text form of a vector. */
function vectorLiteral(v: readonly number[]): string {
  return `[${v.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}

type ChunkOwner = { id: string; tenant_id: string; dataset_id: string; name: string };

/** Inserts chunks with every field a writer may set (keywords, questions and extra fields of a pipeline). */
async function insertChunks(db: Queryable, vector: boolean, doc: ChunkOwner, chunks: NewChunk[]): Promise<void> {
  const now = Date.now();
  // A few hundred rows per statement keeps parameter counts well under PostgreSQL's limit.
  for (let i = 0; i < chunks.length; i += 200) {
    const params = new SqlParams();
    const rows = chunks.slice(i, i + 200).map((c) => {
      const e = normalize(c.embedding);
      const vec = vector ? `, ${params.add(vectorLiteral(e))}::vector` : '';
      const fields = [
        params.add(c.id),
        params.add(doc.tenant_id),
        params.add(doc.dataset_id),
        params.add(doc.id),
        params.add(doc.name),
        params.add(c.content.split('\u0000').join('')),
        params.add(c.section),
        params.add(c.position),
        params.add(c.tokens),
        `${params.add(e)}::real[]${vec}`,
        params.add(now),
        `${params.add(JSON.stringify(c.importantKeywords ?? []))}::jsonb`,
        `${params.add(JSON.stringify(c.questions ?? []))}::jsonb`,
        `${params.add(
          JSON.stringify(c.extra ?? {})
            .split('\\u0000')
            .join(''),
        )}::jsonb`,
      ];
      return `(${fields.join(', ')})`;
    });
    const cols = `id, tenant_id, dataset_id, document_id, document_name, content, section, position, tokens, embedding${vector ? ', embedding_v' : ''}, create_time, important_keywords, questions, extra`;
    await db.query(`INSERT INTO chunks (${cols}) VALUES ${rows.join(', ')} ON CONFLICT (id) DO NOTHING`, params.values());
  }
}

export function chunksRepository(db: Db, vector: boolean): KnowledgeStore['chunks'] {
  const insert = (doc: ChunkOwner, chunks: NewChunk[]) => insertChunks(db, vector, doc, chunks);
  return {
    async commitDocument(doc, chunks) {
      return db.transaction(async (tx) => {
        // Locks the document row: two commits of one document (a re-parse racing an older run) queue up.
        await tx.query('SELECT id FROM documents WHERE id = $1 FOR UPDATE', [doc.id]);
        const old = await tx.query<{ id: string }>('DELETE FROM chunks WHERE document_id = $1 RETURNING id', [doc.id]);
        await insertChunks(tx, vector, doc, chunks);
        await tx.query('UPDATE documents SET chunk_count = $2, token_count = $3 WHERE id = $1', [
          doc.id,
          chunks.length,
          chunks.reduce((n, c) => n + c.tokens, 0),
        ]);
        const kept = new Set(chunks.map((c) => c.id));
        return { replacedIds: old.rows.map((r) => r.id).filter((id) => !kept.has(id)) };
      });
    },
    async replace(doc, chunks) {
      await db.query('DELETE FROM chunks WHERE document_id = $1', [doc.id]);
      await insert(doc, chunks);
    },
    add: insert,
    async deleteForDocument(documentId) {
      await db.query('DELETE FROM chunks WHERE document_id = $1', [documentId]);
    },
    async list(tenantId, documentId, opts) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`, `document_id = ${params.add(documentId)}`];
      // RAGFlow's keyword search reads the chunk's text, its document's name (`title_tks`), its
      // important keywords and its questions.
      if (opts.keywords) {
        const k = params.add(opts.keywords);
        where.push(
          `(strpos(lower(content), lower(${k})) > 0 OR strpos(lower(document_name), lower(${k})) > 0 OR strpos(lower(important_keywords::text), lower(${k})) > 0 OR strpos(lower(questions::text), lower(${k})) > 0)`,
        );
      }
      if (opts.ids) where.push(`id = ANY(${params.add(opts.ids)}::text[])`);
      if (opts.available !== undefined) where.push(`available = ${params.add(opts.available)}`);
      const w = where.join(' AND ');
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chunks WHERE ${w}`, params.values())).rows[0]?.n ?? 0;
      const limit = `LIMIT ${params.add(Math.max(1, opts.pageSize))} OFFSET ${params.add((Math.max(1, opts.page) - 1) * opts.pageSize)}`;
      const r = await db.query<RecordRow>(
        `SELECT ${RECORD}, NULL::real AS vsim FROM chunks WHERE ${w} ORDER BY position, create_time, id ${limit}`,
        params.values(),
      );
      return { items: r.rows.map(toRecord), total };
    },
    async get(tenantId, chunkId) {
      const r = await db.query<RecordRow>(`SELECT ${RECORD}, NULL::real AS vsim FROM chunks WHERE tenant_id = $1 AND id = $2`, [tenantId, chunkId]);
      return r.rows[0] ? toRecord(r.rows[0]) : null;
    },
    async edit(tenantId, chunkId, patch) {
      const params = new SqlParams();
      const sets: string[] = [];
      if (patch.content !== undefined) sets.push(`content = ${params.add(patch.content.split('\u0000').join(''))}`);
      if (patch.importantKeywords !== undefined) sets.push(`important_keywords = ${params.add(JSON.stringify(patch.importantKeywords))}::jsonb`);
      if (patch.questions !== undefined) sets.push(`questions = ${params.add(JSON.stringify(patch.questions))}::jsonb`);
      if (patch.available !== undefined) sets.push(`available = ${params.add(patch.available)}`);
      if (patch.tokens !== undefined) sets.push(`tokens = ${params.add(patch.tokens)}`);
      if (patch.embedding !== undefined) {
        const e = normalize(patch.embedding);
        sets.push(`embedding = ${params.add(e)}::real[]`);
        if (vector) sets.push(`embedding_v = ${params.add(vectorLiteral(e))}::vector`);
      }
      if (sets.length > 0)
        await db.query(`UPDATE chunks SET ${sets.join(', ')} WHERE tenant_id = ${params.add(tenantId)} AND id = ${params.add(chunkId)}`, params.values());
      const r = await db.query<RecordRow>(`SELECT ${RECORD}, NULL::real AS vsim FROM chunks WHERE tenant_id = $1 AND id = $2`, [tenantId, chunkId]);
      return r.rows[0] ? toRecord(r.rows[0]) : null;
    },
    async deleteIds(tenantId, documentId, ids) {
      const r =
        ids === null
          ? await db.query<{ id: string }>('DELETE FROM chunks WHERE tenant_id = $1 AND document_id = $2 RETURNING id', [tenantId, documentId])
          : await db.query<{ id: string }>('DELETE FROM chunks WHERE tenant_id = $1 AND document_id = $2 AND id = ANY($3::text[]) RETURNING id', [
              tenantId,
              documentId,
              ids,
            ]);
      return r.rows.map((x) => x.id);
    },
    async recount(documentId) {
      await db.query(
        `UPDATE documents SET chunk_count = (SELECT count(*)::int FROM chunks WHERE document_id = $1),
           token_count = (SELECT coalesce(sum(tokens), 0)::int FROM chunks WHERE document_id = $1) WHERE id = $1`,
        [documentId],
      );
    },
    async candidates(s: ChunkSearch) {
      if (s.datasetIds.length === 0 || (s.documentIds && s.documentIds.length === 0)) return [];
      const params = new SqlParams();
      const q = normalize(s.embedding);
      const where = ['available', `tenant_id = ${params.add(s.tenantId)}`, `dataset_id = ANY(${params.add(s.datasetIds)}::text[])`];
      if (s.documentIds) where.push(`document_id = ANY(${params.add(s.documentIds)}::text[])`);
      const qv = vector ? params.add(vectorLiteral(q)) : params.add(q);
      const vsim = vector ? `(1 - (embedding_v <=> ${qv}::vector))` : `(SELECT coalesce(sum(a * b), 0) FROM unnest(embedding, ${qv}::real[]) AS t(a, b))`;
      const limit = params.add(Math.max(1, s.topK));
      const w = where.join(' AND ');
      const byVector = db.query<ChunkRow>(`SELECT ${SELECT}, ${vsim} AS vsim FROM chunks WHERE ${w} ORDER BY vsim DESC, id LIMIT ${limit}`, params.values());
      const ts = tsQuery(s.query);
      let byText: Promise<{ rows: ChunkRow[] }> = Promise.resolve({ rows: [] });
      if (ts) {
        const p2 = new SqlParams();
        const where2 = ['available', `tenant_id = ${p2.add(s.tenantId)}`, `dataset_id = ANY(${p2.add(s.datasetIds)}::text[])`];
        if (s.documentIds) where2.push(`document_id = ANY(${p2.add(s.documentIds)}::text[])`);
        const qv2 = vector ? p2.add(vectorLiteral(q)) : p2.add(q);
        const vsim2 = vector ? `(1 - (embedding_v <=> ${qv2}::vector))` : `(SELECT coalesce(sum(a * b), 0) FROM unnest(embedding, ${qv2}::real[]) AS t(a, b))`;
        const tq = `to_tsquery('simple', ${p2.add(ts)})`;
        byText = db.query<ChunkRow>(
          `SELECT ${SELECT}, ${vsim2} AS vsim FROM chunks WHERE ${where2.join(' AND ')} AND tsv @@ ${tq} ORDER BY ts_rank_cd(tsv, ${tq}) DESC, id LIMIT ${p2.add(Math.max(1, s.topK))}`,
          p2.values(),
        );
      }
      const [v, t] = await Promise.all([byVector, byText]);
      return [...v.rows, ...t.rows].map(toHit);
    },
    async count(tenantId, datasetIds) {
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE tenant_id = $1 AND dataset_id = ANY($2::text[])', [
        tenantId,
        datasetIds,
      ]);
      return r.rows[0]?.n ?? 0;
    },
  };
}

/** Adds the pgvector column where the extension exists (and fills it for rows written without it). */
export async function prepareVectorColumn(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE chunks ADD COLUMN IF NOT EXISTS embedding_v vector');
  await db.query('UPDATE chunks SET embedding_v = embedding::vector WHERE embedding_v IS NULL');
}
