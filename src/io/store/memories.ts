/** Memories of a tenant (RAGFlow's `memory` table): every read and write is scoped by tenant. */
import type { MemoryListFilter, MemoryPatch, MemoryRecord, MemoryStore, NewMemory } from './memoryTypes';
import { memoryMessagesRepository } from './memoryMessages';
import { SqlParams } from './sql';
import { newId, stampNow } from './time';
import type { Db } from './contract';

const COLUMNS = `id, tenant_id, name, avatar, memory_type, storage_type, embd_id, llm_id, permissions, description,
  memory_size::float8 AS memory_size, forgetting_policy, temperature, system_prompt, user_prompt,
  create_time, update_time, create_date, update_date`;

/** Patch fields by column: only these names are ever written into SQL. */
const PATCHABLE: ReadonlyArray<keyof MemoryPatch> = [
  'name',
  'avatar',
  'memory_type',
  'embd_id',
  'llm_id',
  'permissions',
  'description',
  'memory_size',
  'forgetting_policy',
  'temperature',
  'system_prompt',
  'user_prompt',
];

function toRecord(r: MemoryRecord): MemoryRecord {
  return {
    ...r,
    memory_size: Number(r.memory_size),
    temperature: Number(r.temperature),
    create_time: Number(r.create_time),
    update_time: Number(r.update_time),
  };
}

export function memoriesRepository(db: Db): MemoryStore {
  const get = async (tenantId: string, id: string) => {
    const r = await db.query<MemoryRecord>(`SELECT ${COLUMNS} FROM memories WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return r.rows[0] ? toRecord(r.rows[0]) : null;
  };
  return {
    async create(input: NewMemory) {
      const id = newId();
      const now = stampNow();
      await db.query(
        `INSERT INTO memories (id, tenant_id, name, memory_type, embd_id, llm_id, system_prompt, create_time, update_time, create_date, update_date)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $9)`,
        [id, input.tenantId, input.name, input.memoryType, input.embdId, input.llmId, input.systemPrompt, now.time, now.date],
      );
      return (await get(input.tenantId, id))!;
    },
    get,
    async getMany(tenantId, ids) {
      if (ids.length === 0) return [];
      const r = await db.query<MemoryRecord>(`SELECT ${COLUMNS} FROM memories WHERE tenant_id = $1 AND id = ANY($2::text[])`, [tenantId, ids]);
      const byId = new Map(r.rows.map((m) => [m.id, toRecord(m)]));
      return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    },
    async findByName(tenantId, name) {
      const r = await db.query<MemoryRecord>(`SELECT ${COLUMNS} FROM memories WHERE tenant_id = $1 AND lower(name) = lower($2)`, [tenantId, name]);
      return r.rows[0] ? toRecord(r.rows[0]) : null;
    },
    async list(tenantId, f: MemoryListFilter) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`];
      if (f.ids) where.push(`id = ANY(${params.add(f.ids)}::text[])`);
      if (f.memoryType) where.push(`(memory_type & ${params.add(f.memoryType)}::int) > 0`);
      if (f.storageType) where.push(`storage_type = ${params.add(f.storageType)}`);
      if (f.keywords) where.push(`strpos(lower(name), lower(${params.add(f.keywords)})) > 0`);
      const w = where.join(' AND ');
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories WHERE ${w}`, params.values())).rows[0]?.n ?? 0;
      const page = `LIMIT ${params.add(f.pageSize)} OFFSET ${params.add((f.page - 1) * f.pageSize)}`;
      // RAGFlow pages by update time, then shows the page newest-created first.
      const r = await db.query<MemoryRecord>(`SELECT ${COLUMNS} FROM memories WHERE ${w} ORDER BY update_time DESC, id ${page}`, params.values());
      return { items: r.rows.map(toRecord).sort((a, b) => b.create_time - a.create_time), total };
    },
    async update(tenantId, id, patch) {
      const params = new SqlParams();
      const sets = PATCHABLE.filter((k) => patch[k] !== undefined).map((k) => `${k} = ${params.add(patch[k])}`);
      const now = stampNow();
      sets.push(`update_time = ${params.add(now.time)}`, `update_date = ${params.add(now.date)}`);
      await db.query(`UPDATE memories SET ${sets.join(', ')} WHERE tenant_id = ${params.add(tenantId)} AND id = ${params.add(id)}`, params.values());
      return get(tenantId, id);
    },
    async delete(tenantId, id) {
      const r = await db.query<{ id: string }>('DELETE FROM memories WHERE tenant_id = $1 AND id = $2 RETURNING id', [tenantId, id]);
      return r.rows.length > 0;
    },
    messages: memoryMessagesRepository(db),
  };
}
