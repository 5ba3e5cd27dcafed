/**
 * RAGFlow's memories, `/api/v1/memories` (api/apps/restful_apis/memory_api.py): create, list,
 * get the config, update, delete, and list a memory's messages. RAGFlow's envelope on HTTP 200:
 * `{code: 0, message: true, data}`; argument errors code 101, another tenant's memory 404.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { assembleSystemPrompt } from '../../src/io/knowledge/memoryPrompts';
import { unindexMemory } from '../../src/io/knowledge/memoryIndex';
import { memoryTypeMask } from '../../src/io/store/memoryTypes';
import type { AppDeps } from '../deps';
import {
  argumentError,
  checkIds,
  checkName,
  checkTypes,
  idList,
  memoryListView,
  memoryView,
  page,
  pageSize,
  requireMemory,
  uniqueName,
  updateMemory,
} from '../services/memories';

const ragflow = { ragflow: true } as const;
const ok = (data: unknown = null) => ({ code: 0, message: true, data });

const CreateBody = z.looseObject({
  name: z.unknown().optional().describe('The memory name (≤ 128 characters)'),
  memory_type: z.unknown().optional().describe('Types to keep: raw, semantic, episodic, procedural'),
  embd_id: z.unknown().optional().describe('Embedding model id'),
  llm_id: z.unknown().optional().describe('LLM id (extraction of semantic/episodic/procedural memory)'),
});

const anyValue = (what: string) => z.unknown().optional().describe(what);
/** Checked by the route with RAGFlow's messages (numbers may come as text, as RAGFlow accepts them). */
const UpdateBody = z.looseObject({
  name: anyValue('string ≤ 128 characters'),
  permissions: anyValue('me | team'),
  llm_id: anyValue('LLM id'),
  embd_id: anyValue('embedding model id (only while the memory is empty)'),
  memory_type: anyValue('list of raw, semantic, episodic, procedural (only while the memory is empty)'),
  memory_size: anyValue('bytes, (0, 10485760]'),
  forgetting_policy: anyValue('FIFO'),
  temperature: anyValue('[0, 1]'),
  avatar: anyValue('string'),
  description: anyValue('string'),
  system_prompt: anyValue('extraction system prompt'),
  user_prompt: anyValue('extraction user prompt'),
});

const oneOrMany = z.union([z.string(), z.array(z.string())]).optional();

const ListQuery = z.looseObject({
  memory_type: oneOrMany,
  tenant_id: oneOrMany,
  storage_type: z.string().optional(),
  keywords: z.string().optional(),
  page: z.string().optional(),
  page_size: z.string().optional(),
});

const MessagesQuery = z.looseObject({
  agent_id: oneOrMany,
  keywords: z.string().optional(),
  page: z.string().optional(),
  page_size: z.string().optional(),
});

const MemoryParams = z.object({ memory_id: z.string() });

export async function memoriesPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  const ownerName = async (tenantId: string) => (await store.tenants.get(tenantId))?.name ?? null;

  app.post('/api/v1/memories', { config: ragflow, schema: { tags: ['memory'], summary: 'Create a memory', body: CreateBody } }, async (request) => {
    const req = (request.body ?? {}) as Record<string, unknown>;
    const missing = ['name', 'memory_type', 'embd_id', 'llm_id'].filter((k) => !(k in req));
    if (missing.length > 0) throw argumentError(`required argument are missing: ${missing.join(',')}; `, missing[0]);
    const name = checkName(req.name);
    const types = checkTypes(req.memory_type);
    const created = await store.memories.create({
      tenantId: request.tenantId,
      name: await uniqueName(store, request.tenantId, name),
      memoryType: memoryTypeMask(types),
      embdId: String(req.embd_id),
      llmId: String(req.llm_id),
      systemPrompt: assembleSystemPrompt(types),
    });
    return ok(memoryView(created, await ownerName(request.tenantId)));
  });

  app.get('/api/v1/memories', { config: ragflow, schema: { tags: ['memory'], summary: 'List memories', querystring: ListQuery } }, async (request) => {
    const q = request.query as z.infer<typeof ListQuery>;
    const size = pageSize(q.page_size, 30);
    const tenants = idList(q.tenant_id);
    // Only the caller's own memories are reachable (no teams here): naming other tenants finds nothing.
    if (tenants.length > 0 && !tenants.includes(request.tenantId)) return ok({ memory_list: [], total_count: 0 });
    const types = idList(q.memory_type);
    const { items, total } = await store.memories.list(request.tenantId, {
      memoryType: types.length > 0 ? memoryTypeMask(types) || -1 : undefined,
      storageType: q.storage_type || undefined,
      keywords: q.keywords || undefined,
      ...(q.ids !== undefined ? { ids: checkIds(idList(q.ids), 'ids') } : {}),
      page: page(q.page),
      pageSize: size,
    });
    const owner = await ownerName(request.tenantId);
    return ok({ memory_list: items.map((m) => memoryListView(m, owner)), total_count: total });
  });

  app.get(
    '/api/v1/memories/:memory_id/config',
    { config: ragflow, schema: { tags: ['memory'], summary: 'A memory’s configuration', params: MemoryParams } },
    async (request) => {
      const { memory_id } = request.params as z.infer<typeof MemoryParams>;
      return ok(memoryView(await requireMemory(store, request.tenantId, memory_id), await ownerName(request.tenantId)));
    },
  );

  app.put(
    '/api/v1/memories/:memory_id',
    { config: ragflow, schema: { tags: ['memory'], summary: 'Update a memory', params: MemoryParams, body: UpdateBody } },
    async (request) => {
      const { memory_id } = request.params as z.infer<typeof MemoryParams>;
      const current = await requireMemory(store, request.tenantId, memory_id);
      const updated = await updateMemory(store, request.tenantId, current, (request.body ?? {}) as Record<string, unknown>);
      return ok(memoryView(updated, await ownerName(request.tenantId)));
    },
  );

  app.delete(
    '/api/v1/memories/:memory_id',
    { config: ragflow, schema: { tags: ['memory'], summary: 'Delete a memory and its messages', params: MemoryParams } },
    async (request) => {
      const { memory_id } = request.params as z.infer<typeof MemoryParams>;
      await requireMemory(store, request.tenantId, memory_id);
      await store.memories.delete(request.tenantId, memory_id);
      await unindexMemory(deps.knowledge?.index, request.tenantId, memory_id);
      return ok();
    },
  );

  app.get(
    '/api/v1/memories/:memory_id',
    {
      config: ragflow,
      schema: { tags: ['memory'], summary: 'A memory’s raw messages, with what was extracted from each', params: MemoryParams, querystring: MessagesQuery },
    },
    async (request) => {
      const { memory_id } = request.params as z.infer<typeof MemoryParams>;
      const q = request.query as z.infer<typeof MessagesQuery>;
      const agentIds = checkIds(idList(q.agent_id), 'agent_id');
      const size = pageSize(q.page_size, 50);
      const memory = await requireMemory(store, request.tenantId, memory_id);
      const { items, total } = await store.memories.messages.listRaw(request.tenantId, memory_id, {
        agentIds,
        keywords: (q.keywords ?? '').trim(),
        page: page(q.page),
        pageSize: size,
      });
      const titles = new Map<string, string>();
      for (const id of new Set(items.flatMap((m) => [m.agent_id, ...m.extract.map((e) => e.agent_id)]))) {
        const canvas = id ? await store.canvases.get(request.tenantId, id) : null;
        titles.set(id, canvas?.title ?? 'Unknown');
      }
      const message_list = items.map((m) => ({
        ...m,
        agent_name: titles.get(m.agent_id) ?? 'Unknown',
        task: {},
        extract: m.extract.map((e) => ({ ...e, agent_name: titles.get(e.agent_id) ?? 'Unknown' })),
      }));
      return ok({ messages: { message_list, total_count: total }, storage_type: memory.storage_type });
    },
  );
}
