/**
 * RAGFlow's memory service rules (api/apps/services/memory_api_service.py): names, types, sizes,
 * forgetting policies and temperatures checked with RAGFlow's messages; memories shown in its
 * `format_ret_data_from_memory` shape. A memory of another tenant is "not found" (404).
 */
import { AppError } from '../../src/errors';
import { assembleSystemPrompt, isDefaultSystemPrompt } from '../../src/io/knowledge/memoryPrompts';
import type { Store } from '../../src/io/store/contract';
import { MEMORY_TYPES, memoryTypeMask, memoryTypeNames, type MemoryPatch, type MemoryRecord } from '../../src/io/store/memoryTypes';

export const MEMORY_NAME_LIMIT = 128;
/** The largest memory_size RAGFlow accepts, bytes. */
export const MEMORY_SIZE_LIMIT = 10 * 1024 * 1024;
export const FORGETTING_POLICIES = ['FIFO'] as const;
export const PERMISSIONS = ['me', 'team'] as const;
/** RAGFlow's REST_API_MAX_PAGE_SIZE and REST_API_MAX_IDS. */
export const MAX_PAGE_SIZE = 100;
export const MAX_IDS = 100;

/** RAGFlow's `get_error_argument_result`: code 101 with its message. */
export const argumentError = (message: string, field?: string) =>
  new AppError('BAD_REQUEST', message, { ragflowCode: 101, ...(field ? { problems: [{ path: `$.${field}`, message }] } : {}) });

/** RAGFlow's NotFoundException on the memory routes: code 404. */
export const notFound = (message: string) => new AppError('NOT_FOUND', message, { ragflowCode: 404 });

export const memoryNotFound = (id: string) => notFound(`Memory '${id}' not found.`);

/** The memory when the caller's tenant owns it, else RAGFlow's 404. */
export async function requireMemory(store: Store, tenantId: string, id: string): Promise<MemoryRecord> {
  const memory = await store.memories.get(tenantId, id);
  if (!memory) throw memoryNotFound(id);
  return memory;
}

/** RAGFlow's trimmed, bounded memory name. */
export function checkName(raw: unknown): string {
  const name = String(raw ?? '').trim();
  if (!name) throw argumentError('Memory name cannot be empty or whitespace.', 'name');
  if (name.length > MEMORY_NAME_LIMIT) throw argumentError(`Memory name '${name}' exceeds limit of ${MEMORY_NAME_LIMIT}.`, 'name');
  return name;
}

/** Python's repr of a set of strings, as RAGFlow's message prints it. */
const pySet = (values: string[]) => `{${values.map((v) => `'${v}'`).join(', ')}}`;

/** The memory types, checked (RAGFlow: a list of known names). */
export function checkTypes(raw: unknown): string[] {
  if (!Array.isArray(raw)) throw argumentError('Memory type must be a list.', 'memory_type');
  const types = [...new Set(raw.map(String))];
  const invalid = types.filter((t) => !(MEMORY_TYPES as readonly string[]).includes(t));
  if (invalid.length > 0) throw argumentError(`Memory type '${pySet(invalid)}' is not supported.`, 'memory_type');
  return types;
}

/** RAGFlow's `duplicate_name`: `name`, else `name(1)`, `name(2)`… (before an extension). */
export async function uniqueName(store: Store, tenantId: string, name: string, except?: string): Promise<string> {
  let candidate = name;
  for (let i = 1; i <= 1000; i++) {
    const clash = await store.memories.findByName(tenantId, candidate);
    if (!clash || clash.id === except) return candidate;
    const dot = name.lastIndexOf('.');
    candidate = dot > 0 ? `${name.slice(0, dot)}(${i})${name.slice(dot)}` : `${name}(${i})`;
  }
  throw new AppError('DUPLICATE', `Cannot find a free name for memory '${name}'.`);
}

/** RAGFlow's `format_ret_data_from_memory`. */
export function memoryView(m: MemoryRecord, ownerName: string | null): Record<string, unknown> {
  return {
    id: m.id,
    name: m.name,
    avatar: m.avatar,
    tenant_id: m.tenant_id,
    owner_name: ownerName,
    memory_type: memoryTypeNames(m.memory_type),
    storage_type: m.storage_type,
    embd_id: m.embd_id,
    llm_id: m.llm_id,
    permissions: m.permissions,
    description: m.description,
    memory_size: m.memory_size,
    forgetting_policy: m.forgetting_policy,
    temperature: m.temperature,
    system_prompt: m.system_prompt,
    user_prompt: m.user_prompt,
    create_time: m.create_time,
    create_date: m.create_date,
    update_time: m.update_time,
    update_date: m.update_date,
  };
}

/** A row of RAGFlow's memory list (`get_by_filter`'s fields, with `embd_name`). */
export function memoryListView(m: MemoryRecord, ownerName: string | null): Record<string, unknown> {
  const { id, name, avatar, tenant_id, storage_type, embd_id, llm_id, permissions, description, create_time, create_date } = m;
  return {
    id,
    name,
    avatar,
    tenant_id,
    owner_name: ownerName,
    memory_type: memoryTypeNames(m.memory_type),
    storage_type,
    embd_id,
    llm_id,
    permissions,
    description,
    create_time,
    create_date,
    embd_name: embd_id,
  };
}

/**
 * RAGFlow's `update_memory`: the settings checked, compared with the current ones, and only the
 * changed ones written; the embedding model and types cannot change once the memory holds
 * messages; a default system prompt follows a change of types.
 */
export async function updateMemory(store: Store, tenantId: string, current: MemoryRecord, req: Record<string, unknown>): Promise<MemoryRecord> {
  const patch: MemoryPatch = {};
  if ('name' in req) patch.name = checkName(req.name);
  if (req.permissions) {
    if (!(PERMISSIONS as readonly unknown[]).includes(req.permissions)) throw argumentError(`Unknown permission '${String(req.permissions)}'.`, 'permissions');
    patch.permissions = String(req.permissions);
  }
  if (req.llm_id) patch.llm_id = String(req.llm_id);
  if (req.embd_id) patch.embd_id = String(req.embd_id).trim();
  if (req.memory_type) patch.memory_type = memoryTypeMask(checkTypes(req.memory_type));
  if (req.memory_size) {
    const size = Number(req.memory_size);
    if (!Number.isFinite(size) || !(size > 0 && size <= MEMORY_SIZE_LIMIT))
      throw argumentError(`Memory size should be in range (0, ${MEMORY_SIZE_LIMIT}] Bytes.`, 'memory_size');
    patch.memory_size = Math.floor(size);
  }
  if (req.forgetting_policy) {
    if (!(FORGETTING_POLICIES as readonly unknown[]).includes(req.forgetting_policy))
      throw argumentError(`Forgetting policy '${String(req.forgetting_policy)}' is not supported.`, 'forgetting_policy');
    patch.forgetting_policy = String(req.forgetting_policy);
  }
  if ('temperature' in req) {
    const t = Number(req.temperature);
    if (!Number.isFinite(t) || t < 0 || t > 1) throw argumentError('Temperature should be in range [0, 1].', 'temperature');
    patch.temperature = t;
  }
  // Fields that may be emptied.
  for (const f of ['avatar', 'description'] as const) if (f in req) patch[f] = req[f] == null ? null : String(req[f]);
  for (const f of ['system_prompt', 'user_prompt'] as const) if (f in req) patch[f] = req[f] == null ? '' : String(req[f]);
  const changed = Object.fromEntries(Object.entries(patch).filter(([k, v]) => current[k as keyof MemoryRecord] !== v)) as MemoryPatch;
  if (Object.keys(changed).length === 0) return current;
  const locked = (['embd_id', 'memory_type'] as const).filter((f) => f in changed);
  if (locked.length > 0 && (await store.memories.messages.size(current.id)) > 0)
    throw argumentError(`Can't update [${locked.map((f) => `'${f}'`).join(', ')}] when memory isn't empty.`);
  if (
    changed.memory_type !== undefined &&
    changed.system_prompt === undefined &&
    isDefaultSystemPrompt(current.system_prompt, memoryTypeNames(current.memory_type))
  )
    changed.system_prompt = assembleSystemPrompt(memoryTypeNames(changed.memory_type));
  if (changed.name !== undefined) changed.name = await uniqueName(store, tenantId, changed.name, current.id);
  return (await store.memories.update(tenantId, current.id, changed))!;
}

/** Ids from a query value given once, repeated, or comma-separated (RAGFlow's `getlist` + split). */
export function idList(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw.map(String) : raw == null || raw === '' ? [] : [String(raw)];
  const list = values.length === 1 && values[0]!.includes(',') ? values[0]!.split(',') : values;
  return list.map((v) => v.trim()).filter(Boolean);
}

/** RAGFlow's `validate_rest_api_ids`. */
export function checkIds(ids: string[], field: string): string[] {
  if (ids.length > MAX_IDS) throw argumentError(`${field} must contain at most ${MAX_IDS} IDs`, field);
  return ids;
}

/** RAGFlow's `validate_rest_api_page_size`: bad values fall back to `def`, too large ones are refused. */
export function pageSize(raw: unknown, def: number, field = 'page_size'): number {
  const n = Number.parseInt(String(raw ?? ''), 10);
  if (!Number.isFinite(n) || n < 1) return def;
  if (n > MAX_PAGE_SIZE) throw argumentError(`page_size must be less than or equal to ${MAX_PAGE_SIZE}`, field);
  return n;
}

/** RAGFlow's `validate_rest_api_page`: bad values fall back to 1. */
export function page(raw: unknown): number {
  const n = Number.parseInt(String(raw ?? ''), 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, 1_000_000) : 1;
}
