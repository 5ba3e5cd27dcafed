/**
 * RAGFlow's memory messages, `/api/v1/messages` (api/apps/restful_apis/memory_api.py): add a turn
 * to memories, search them (vector + full text), the most recent ones, one message's content,
 * enable or disable one, and forget one (`DELETE /messages/{memory_id}:{message_id}`). A message
 * added here is saved and embedded at once; what the memory's LLM extracts from it is a
 * `memoryExtraction` workflow (retried, durable), RAGFlow's queued task.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { saveTurn, searchMemories } from '../../src/io/knowledge/memoryService';
import { embeddingSettingsFromEnv } from '../../src/io/knowledge/embedder';
import { indexMemoryMessages, unindexMemoryMessages } from '../../src/io/knowledge/memoryIndex';
import { formatDate } from '../../src/io/store/time';
import { memoryExtractionWorkflowId } from '../../workflows/memoryExtraction';
import type { AppDeps } from '../deps';
import { argumentError, checkIds, idList, notFound, pageSize, requireMemory } from '../services/memories';

const ragflow = { ragflow: true } as const;
const ok = (data: unknown = null, message: unknown = true) => ({ code: 0, message, data });
const oneOrMany = z.union([z.string(), z.array(z.string())]).optional();

const AddBody = z.looseObject({
  memory_id: z.unknown().optional().describe('Memory ids (a list) the turn is added to'),
  agent_id: z.unknown().optional().describe('The agent (canvas) id'),
  session_id: z.unknown().optional().describe('The session id'),
  user_input: z.unknown().optional().describe('What the user said'),
  agent_response: z.unknown().optional().describe('What the agent answered'),
  user_id: z.unknown().optional().describe('The end user (API-key callers)'),
});

const SearchQuery = z.looseObject({
  memory_id: oneOrMany,
  query: z.string().optional(),
  similarity_threshold: z.string().optional(),
  keywords_similarity_weight: z.string().optional(),
  top_n: z.string().optional(),
  agent_id: z.string().optional(),
  session_id: z.string().optional(),
  user_id: z.string().optional(),
});

const RecentQuery = z.looseObject({ memory_id: oneOrMany, agent_id: z.string().optional(), session_id: z.string().optional(), limit: z.string().optional() });

const RefParams = z.object({ ref: z.string().describe('{memory_id}:{message_id}') });

const StatusBody = z.looseObject({ status: z.unknown().optional().describe('true: the message is used; false: it is not') });

/** `{memory_id}:{message_id}` split at its last colon; a message id that is not a number matches nothing. */
function parseRef(ref: string): { memoryId: string; messageId: number } {
  const at = ref.lastIndexOf(':');
  const memoryId = at >= 0 ? ref.slice(0, at) : ref;
  const raw = at >= 0 ? ref.slice(at + 1) : '';
  const messageId = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  return { memoryId, messageId };
}

const floatParam = (raw: string | undefined, def: number, field: string): number => {
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw argumentError(`${field} must be a number, got ${JSON.stringify(raw)}`, `query.${field}`);
  return n;
};

export async function memoryMessagesPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  const index = deps.knowledge?.index;
  const memoryDeps = { store, embedding: deps.knowledge?.embedding ?? embeddingSettingsFromEnv({}), index };

  app.post('/api/v1/messages', { config: ragflow, schema: { tags: ['memory'], summary: 'Add a turn to memories', body: AddBody } }, async (request) => {
    const req = (request.body ?? {}) as Record<string, unknown>;
    const missing = ['memory_id', 'agent_id', 'session_id', 'user_input', 'agent_response'].filter((k) => !(k in req));
    if (missing.length > 0) throw argumentError(`required argument are missing: ${missing.join(',')}; `, missing[0]);
    const wanted = idList(req.memory_id);
    const owned = (await store.memories.getMany(request.tenantId, wanted)).map((m) => m.id);
    const failed = (detail: string) => ({ code: 500, message: `Some messages failed to add. Detail:${detail}`, data: null });
    if (owned.length === 0) return failed('Memory not found.');
    const turn = {
      userId: req.user_id == null ? '' : String(req.user_id),
      agentId: String(req.agent_id),
      sessionId: String(req.session_id),
      userInput: String(req.user_input),
      agentResponse: String(req.agent_response),
    };
    const saved = await saveTurn(memoryDeps, request.tenantId, owned, turn, null);
    const errors = saved.filter((s) => s.error).map((s) => `Memory ${s.memoryId} failed. Detail: ${s.error}`);
    for (const s of saved) {
      if (!s.extract || s.messageId === null) continue;
      try {
        await deps.temporal.workflow.start('memoryExtraction', {
          taskQueue: deps.taskQueue,
          workflowId: memoryExtractionWorkflowId(s.memoryId, s.messageId),
          args: [{ tenantId: request.tenantId, memoryId: s.memoryId, sourceId: s.messageId, turn }],
        });
      } catch (err) {
        errors.push(`Memory ${s.memoryId} failed. Detail: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return errors.length > 0 ? failed(errors.join('')) : ok(null, 'All add to task.');
  });

  app.get(
    '/api/v1/messages/search',
    { config: ragflow, schema: { tags: ['memory'], summary: 'Search memories (vector + full text)', querystring: SearchQuery } },
    async (request) => {
      const q = request.query as z.infer<typeof SearchQuery>;
      const memoryIds = checkIds(idList(q.memory_id), 'memory_id');
      const topN = pageSize(q.top_n, 5, 'top_n');
      const found = await searchMemories(memoryDeps, request.tenantId, {
        memoryIds,
        query: q.query ?? '',
        similarityThreshold: floatParam(q.similarity_threshold, 0.2, 'similarity_threshold'),
        keywordsSimilarityWeight: floatParam(q.keywords_similarity_weight, 0.7, 'keywords_similarity_weight'),
        topN,
        ...(q.agent_id ? { agentId: q.agent_id } : {}),
        ...(q.session_id ? { sessionId: q.session_id } : {}),
        ...(q.user_id ? { userId: q.user_id } : {}),
      });
      return ok(found);
    },
  );

  app.get(
    '/api/v1/messages',
    { config: ragflow, schema: { tags: ['memory'], summary: 'Recent messages of memories', querystring: RecentQuery } },
    async (request) => {
      const q = request.query as z.infer<typeof RecentQuery>;
      const memoryIds = checkIds(idList(q.memory_id), 'memory_id');
      const limit = pageSize(q.limit, 10, 'limit');
      if (memoryIds.length === 0) throw argumentError('memory_ids is required.', 'query.memory_id');
      const owned = (await store.memories.getMany(request.tenantId, memoryIds)).map((m) => m.id);
      if (owned.length === 0) return ok([]);
      return ok(
        await store.memories.messages.recent(request.tenantId, owned, { agentId: q.agent_id || undefined, sessionId: q.session_id || undefined, limit }),
      );
    },
  );

  app.get(
    '/api/v1/messages/:ref/content',
    { config: ragflow, schema: { tags: ['memory'], summary: 'One message, with its content and embedding', params: RefParams } },
    async (request) => {
      const { memoryId, messageId } = parseRef((request.params as z.infer<typeof RefParams>).ref);
      await requireMemory(store, request.tenantId, memoryId);
      const message = await store.memories.messages.get(request.tenantId, memoryId, messageId);
      if (!message) throw notFound(`Message '${messageId}' in memory '${memoryId}' not found.`);
      return ok({ ...message, id: `${memoryId}_${messageId}` });
    },
  );

  app.put(
    '/api/v1/messages/:ref',
    { config: ragflow, schema: { tags: ['memory'], summary: 'Enable or disable a message (status)', params: RefParams, body: StatusBody } },
    async (request) => {
      const { memoryId, messageId } = parseRef((request.params as z.infer<typeof RefParams>).ref);
      const req = (request.body ?? {}) as Record<string, unknown>;
      if (!('status' in req)) throw argumentError('required argument are missing: status; ', 'status');
      if (typeof req.status !== 'boolean') throw argumentError('Status must be a boolean.', 'status');
      await requireMemory(store, request.tenantId, memoryId);
      if (!(await store.memories.messages.update(request.tenantId, memoryId, messageId, { status: req.status })))
        throw notFound(`Message '${Number.isNaN(messageId) ? '' : messageId}' in memory '${memoryId}' not found.`);
      const message = req.status ? await store.memories.messages.get(request.tenantId, memoryId, messageId) : null;
      if (message && !message.forget_at)
        await indexMemoryMessages(index, request.tenantId, memoryId, [{ messageId, content: message.content, embedding: message.content_embed }]);
      else await unindexMemoryMessages(index, request.tenantId, memoryId, [messageId]);
      return ok(null, true);
    },
  );

  app.delete(
    '/api/v1/messages/:ref',
    {
      config: ragflow,
      schema: { tags: ['memory'], summary: 'Forget a message (searches and recent lists leave it out; FIFO removes it first)', params: RefParams },
    },
    async (request) => {
      const { memoryId, messageId } = parseRef((request.params as z.infer<typeof RefParams>).ref);
      await requireMemory(store, request.tenantId, memoryId);
      if (!(await store.memories.messages.update(request.tenantId, memoryId, messageId, { forgetAt: formatDate(Date.now()) })))
        throw notFound(`Message '${Number.isNaN(messageId) ? '' : messageId}' in memory '${memoryId}' not found.`);
      await unindexMemoryMessages(index, request.tenantId, memoryId, [messageId]);
      return ok(null, true);
    },
  );
}
