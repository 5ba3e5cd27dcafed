/**
 * Messages of memories: saved with FIFO forgetting under the memory's size (RAGFlow's
 * `embed_and_save`), searched by vector similarity (an exact dot product over the normalized
 * `real[]`, on PGlite and PostgreSQL alike) and by full text (`tsvector`). A canvas turn's
 * `save_key` is unique per memory, so a retried save stores nothing twice.
 */
import { normalize } from '../text/localEmbedding';
import { tokenize } from '../text/tokens';
import type { MemoryHit, MemoryMessage, MemoryMessagesStore, NewMemoryMessage } from './memoryTypes';
import { SqlParams } from './sql';
import type { Db, Queryable } from './contract';

const FIELDS = `message_id, message_type, source_id, memory_id, user_id, agent_id, session_id, valid_at, invalid_at, forget_at, status, content`;

type Row = MemoryMessage & { vsim?: number | null; size?: number };

function toMessage(r: Row): MemoryMessage {
  return {
    message_id: Number(r.message_id),
    message_type: r.message_type,
    source_id: Number(r.source_id),
    memory_id: r.memory_id,
    user_id: r.user_id,
    agent_id: r.agent_id,
    session_id: r.session_id,
    valid_at: r.valid_at,
    invalid_at: r.invalid_at,
    forget_at: r.forget_at,
    status: r.status,
    content: r.content,
  };
}

/** `a | b | c` over plain word terms (as chunk search does). */
function tsQuery(query: string): string {
  const terms = [...new Set(tokenize(query).filter((t) => /^[\p{L}\p{N}]+$/u.test(t) && !/[\u3040-\u9fff\uac00-\ud7af]/u.test(t)))];
  return terms.slice(0, 32).join(' | ');
}

async function insert(tx: Queryable, tenantId: string, memoryId: string, m: NewMemoryMessage): Promise<number | null> {
  const r = await tx.query<{ message_id: number }>(
    `INSERT INTO memory_messages (memory_id, tenant_id, message_type, source_id, user_id, agent_id, session_id, content, embedding, size, valid_at, invalid_at, save_key, create_time)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::real[], $10, $11, $12, $13, $14)
     ON CONFLICT (memory_id, save_key) DO NOTHING RETURNING message_id`,
    [
      memoryId,
      tenantId,
      m.messageType,
      m.sourceId,
      m.userId,
      m.agentId,
      m.sessionId,
      m.content.split('\u0000').join(''),
      normalize(m.embedding),
      m.size,
      m.validAt,
      m.invalidAt,
      m.saveKey ?? null,
      Date.now(),
    ],
  );
  return r.rows[0] ? Number(r.rows[0].message_id) : null;
}

/**
 * Makes room for `incoming` bytes (RAGFlow's FIFO policy: forgotten messages first, then the
 * oldest); returns how many were deleted, or a refusal when the policy cannot decide.
 */
async function makeRoom(tx: Queryable, memoryId: string, incoming: number): Promise<{ evicted: number[]; refused?: string }> {
  const m = (
    await tx.query<{ memory_size: number; forgetting_policy: string }>(
      'SELECT memory_size::float8 AS memory_size, forgetting_policy FROM memories WHERE id = $1 FOR UPDATE',
      [memoryId],
    )
  ).rows[0];
  if (!m) return { evicted: [], refused: `Memory '${memoryId}' not found.` };
  const current = Number(
    (await tx.query<{ n: number }>('SELECT coalesce(sum(size), 0)::float8 AS n FROM memory_messages WHERE memory_id = $1', [memoryId])).rows[0]?.n ?? 0,
  );
  const excess = current + incoming - Number(m.memory_size);
  if (excess <= 0) return { evicted: [] };
  if (m.forgetting_policy !== 'FIFO')
    return { evicted: [], refused: 'Failed to insert message into memory. Memory size reached limit and cannot decide which to delete.' };
  const order = await tx.query<{ message_id: number; size: number }>(
    `SELECT message_id, size FROM memory_messages WHERE memory_id = $1
     ORDER BY (forget_at IS NULL), forget_at, valid_at, message_id`,
    [memoryId],
  );
  const ids: number[] = [];
  let freed = 0;
  for (const r of order.rows) {
    if (freed >= excess) break;
    ids.push(Number(r.message_id));
    freed += Number(r.size);
  }
  if (ids.length > 0) await tx.query('DELETE FROM memory_messages WHERE memory_id = $1 AND message_id = ANY($2::int[])', [memoryId, ids]);
  return { evicted: ids };
}

export function memoryMessagesRepository(db: Db): MemoryMessagesStore {
  return {
    async save(tenantId, memoryId, messages) {
      return db.transaction(async (tx) => {
        const key = messages[0]?.saveKey;
        if (key) {
          const seen = await tx.query<{ message_id: number }>('SELECT message_id FROM memory_messages WHERE memory_id = $1 AND save_key = $2', [memoryId, key]);
          if (seen.rows[0]) return { saved: false, messageIds: [Number(seen.rows[0].message_id)], evicted: [] };
        }
        const room = await makeRoom(
          tx,
          memoryId,
          messages.reduce((n, m) => n + m.size, 0),
        );
        if (room.refused) return { saved: false, messageIds: [], evicted: [], refused: room.refused };
        const ids: number[] = [];
        for (const m of messages) {
          const id = await insert(tx, tenantId, memoryId, m);
          if (id !== null) ids.push(id);
        }
        return { saved: ids.length > 0, messageIds: ids, evicted: room.evicted };
      });
    },
    async replaceExtracted(tenantId, memoryId, sourceId, messages) {
      return db.transaction(async (tx) => {
        const old = await tx.query<{ message_id: number }>(
          'DELETE FROM memory_messages WHERE tenant_id = $1 AND memory_id = $2 AND source_id = $3 RETURNING message_id',
          [tenantId, memoryId, sourceId],
        );
        const removed = old.rows.map((r) => Number(r.message_id));
        if (messages.length === 0) return { messageIds: [], removed };
        const room = await makeRoom(
          tx,
          memoryId,
          messages.reduce((n, m) => n + m.size, 0),
        );
        if (room.refused) return { messageIds: [], removed, refused: room.refused };
        const ids: number[] = [];
        for (const m of messages) {
          const id = await insert(tx, tenantId, memoryId, { ...m, sourceId });
          if (id !== null) ids.push(id);
        }
        return { messageIds: ids, removed: [...removed, ...room.evicted] };
      });
    },
    async size(memoryId) {
      const r = await db.query<{ n: number }>('SELECT coalesce(sum(size), 0)::float8 AS n FROM memory_messages WHERE memory_id = $1', [memoryId]);
      return Number(r.rows[0]?.n ?? 0);
    },
    async get(tenantId, memoryId, messageId) {
      if (!Number.isSafeInteger(messageId)) return null;
      const r = await db.query<Row & { embedding: number[] }>(
        `SELECT ${FIELDS}, embedding FROM memory_messages WHERE tenant_id = $1 AND memory_id = $2 AND message_id = $3`,
        [tenantId, memoryId, messageId],
      );
      const row = r.rows[0];
      return row ? { ...toMessage(row), content_embed: row.embedding.map(Number) } : null;
    },
    async listRaw(tenantId, memoryId, o) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`, `memory_id = ${params.add(memoryId)}`, `message_type = 'raw'`];
      if (o.agentIds.length > 0) where.push(`agent_id = ANY(${params.add(o.agentIds)}::text[])`);
      if (o.keywords) where.push(`strpos(session_id, ${params.add(o.keywords)}) > 0`);
      const w = where.join(' AND ');
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memory_messages WHERE ${w}`, params.values())).rows[0]?.n ?? 0;
      const limit = `LIMIT ${params.add(o.pageSize)} OFFSET ${params.add((o.page - 1) * o.pageSize)}`;
      const raw = (
        await db.query<Row>(`SELECT ${FIELDS} FROM memory_messages WHERE ${w} ORDER BY valid_at DESC, message_id DESC ${limit}`, params.values())
      ).rows.map(toMessage);
      const extracted =
        raw.length === 0
          ? []
          : (
              await db.query<Row>(
                `SELECT ${FIELDS} FROM memory_messages WHERE memory_id = $1 AND source_id = ANY($2::int[]) ORDER BY valid_at DESC, message_id`,
                [memoryId, raw.map((m) => m.message_id)],
              )
            ).rows.map(toMessage);
      return { items: raw.map((m) => ({ ...m, extract: extracted.filter((e) => e.source_id === m.message_id) })), total };
    },
    async byIds(tenantId, memoryIds, messageIds, f) {
      if (messageIds.length === 0) return [];
      const params = new SqlParams();
      const where = [
        'status',
        'forget_at IS NULL',
        `tenant_id = ${params.add(tenantId)}`,
        `memory_id = ANY(${params.add(memoryIds)}::text[])`,
        `message_id = ANY(${params.add(messageIds)}::int[])`,
      ];
      if (f.agentId) where.push(`agent_id = ${params.add(f.agentId)}`);
      if (f.sessionId) where.push(`session_id = ${params.add(f.sessionId)}`);
      if (f.userId) where.push(`user_id = ${params.add(f.userId)}`);
      return (await db.query<Row>(`SELECT ${FIELDS} FROM memory_messages WHERE ${where.join(' AND ')}`, params.values())).rows.map(toMessage);
    },
    async recent(tenantId, memoryIds, o) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`, `memory_id = ANY(${params.add(memoryIds)}::text[])`, 'forget_at IS NULL'];
      if (o.agentId) where.push(`agent_id = ${params.add(o.agentId)}`);
      if (o.sessionId) where.push(`session_id = ${params.add(o.sessionId)}`);
      const r = await db.query<Row>(
        `SELECT ${FIELDS} FROM memory_messages WHERE ${where.join(' AND ')} ORDER BY valid_at DESC, message_id DESC LIMIT ${params.add(o.limit)}`,
        params.values(),
      );
      return r.rows.map(toMessage);
    },
    async candidates(s) {
      if (s.memoryIds.length === 0) return [];
      const build = (extra: (p: SqlParams) => { where: string; order: string }) => {
        const p = new SqlParams();
        const where = ['status', 'forget_at IS NULL', `tenant_id = ${p.add(s.tenantId)}`, `memory_id = ANY(${p.add(s.memoryIds)}::text[])`];
        if (s.agentId) where.push(`agent_id = ${p.add(s.agentId)}`);
        if (s.sessionId) where.push(`session_id = ${p.add(s.sessionId)}`);
        if (s.userId) where.push(`user_id = ${p.add(s.userId)}`);
        const vsim = `(SELECT coalesce(sum(a * b), 0) FROM unnest(embedding, ${p.add(normalize(s.embedding))}::real[]) AS t(a, b))`;
        const e = extra(p);
        if (e.where) where.push(e.where);
        return db.query<Row>(
          `SELECT ${FIELDS}, ${vsim} AS vsim FROM memory_messages WHERE ${where.join(' AND ')} ORDER BY ${e.order}, message_id LIMIT ${p.add(Math.max(1, s.limit))}`,
          p.values(),
        );
      };
      const ts = tsQuery(s.query);
      const [v, t] = await Promise.all([
        build(() => ({ where: '', order: 'vsim DESC' })),
        ts
          ? build((p) => ({ where: `tsv @@ to_tsquery('simple', ${p.add(ts)})`, order: `ts_rank_cd(tsv, to_tsquery('simple', ${p.add(ts)})) DESC` }))
          : Promise.resolve({ rows: [] as Row[] }),
      ]);
      const seen = new Set<number>();
      const hits: MemoryHit[] = [];
      for (const r of [...v.rows, ...t.rows]) {
        const m = toMessage(r);
        if (seen.has(m.message_id)) continue;
        seen.add(m.message_id);
        hits.push({ ...m, vectorSimilarity: Number(r.vsim ?? 0) });
      }
      return hits;
    },
    async update(tenantId, memoryId, messageId, patch) {
      if (!Number.isSafeInteger(messageId)) return false;
      const params = new SqlParams();
      const sets: string[] = [];
      if (patch.status !== undefined) sets.push(`status = ${params.add(patch.status)}`);
      if (patch.forgetAt !== undefined) sets.push(`forget_at = ${params.add(patch.forgetAt)}`);
      if (sets.length === 0) return true;
      const r = await db.query<{ message_id: number }>(
        `UPDATE memory_messages SET ${sets.join(', ')} WHERE tenant_id = ${params.add(tenantId)} AND memory_id = ${params.add(memoryId)} AND message_id = ${params.add(messageId)} RETURNING message_id`,
        params.values(),
      );
      return r.rows.length > 0;
    },
    async count(tenantId, memoryId) {
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM memory_messages WHERE tenant_id = $1 AND memory_id = $2', [tenantId, memoryId]);
      return r.rows[0]?.n ?? 0;
    },
  };
}
