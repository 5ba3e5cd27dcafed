/**
 * RAGFlow's dataset routes (`/api/v1/datasets`): create, list, get, update, delete. A dataset
 * keeps the embedding model it was created with (an OpenAI-compatible endpoint when configured,
 * else the offline embedding); chunking follows its `parser_config`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { datasetEmbeddingModel } from '../../src/io/knowledge/embedder';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { ragflowResult } from '../envelope';
import { pageParams } from '../paging';
import { datasetView, knowledgeOf, stopIndexing } from '../services/knowledge';

const ragflow = { ragflow: true } as const;

export const CHUNK_METHODS = ['naive', 'book', 'email', 'laws', 'manual', 'one', 'paper', 'picture', 'presentation', 'qa', 'table', 'tag'] as const;

const ParserConfig = z.looseObject({
  chunk_token_num: z.number().int().min(1).max(2048).optional(),
  delimiter: z.string().optional(),
  overlapped_percent: z.number().min(0).max(90).optional(),
});

const DatasetBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
  description: z.string().max(65535).nullish(),
  avatar: z.string().nullish(),
  embedding_model: z.string().nullish(),
  permission: z.enum(['me', 'team']).optional(),
  chunk_method: z.enum(CHUNK_METHODS, { message: `must be one of ${CHUNK_METHODS.join(', ')}` }).optional(),
  parser_config: ParserConfig.nullish(),
});

function parse<T>(schema: z.ZodType<T>, raw: unknown): T {
  const r = schema.safeParse(raw ?? {});
  if (!r.success) {
    const problems = r.error.issues.map((i) => ({ path: `$.${i.path.join('.')}`, message: i.message }));
    throw new AppError('BAD_REQUEST', problems.map((p) => `Field: <${p.path.slice(2)}> - Message: <${p.message}>`).join('; '), { problems });
  }
  return r.data;
}

const DEFAULT_PARSER_CONFIG = { chunk_token_num: 512, delimiter: '\n!?;。；！？', overlapped_percent: 0 };

export async function datasetsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  const datasets = store.knowledge.datasets;

  app.post('/api/v1/datasets', { config: ragflow, schema: { tags: ['datasets'], summary: 'Create a dataset' } }, async (request) => {
    const b = parse(DatasetBody, request.body);
    if (await datasets.find(request.tenantId, b.name)) throw new AppError('DUPLICATE', `Dataset name '${b.name}' already exists`);
    const created = await datasets.create({
      tenantId: request.tenantId,
      name: b.name,
      description: b.description ?? null,
      avatar: b.avatar ?? null,
      embeddingModel: datasetEmbeddingModel(b.embedding_model, knowledgeOf(deps).embedding),
      chunkMethod: b.chunk_method ?? 'naive',
      parserConfig: { ...DEFAULT_PARSER_CONFIG, ...(b.parser_config ?? {}) },
    });
    return ragflowResult(datasetView(created));
  });

  app.get('/api/v1/datasets', { config: ragflow, schema: { tags: ['datasets'], summary: 'List datasets' } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const paging = pageParams(q, 'create_time');
    const { items, total } = await datasets.list(request.tenantId, { ...paging, name: q.name, id: q.id });
    if ((q.id || q.name) && items.length === 0) throw new AppError('NO_PERMISSION', `You don't own the dataset ${q.id ?? q.name}`);
    return { code: 0, data: items.map(datasetView), total };
  });

  app.get('/api/v1/datasets/:dataset_id', { config: ragflow, schema: { tags: ['datasets'], summary: 'Get a dataset' } }, async (request) => {
    const { dataset_id } = request.params as { dataset_id: string };
    const d = await datasets.get(request.tenantId, dataset_id);
    if (!d) throw new AppError('NO_PERMISSION', `You don't own the dataset ${dataset_id}`);
    return ragflowResult(datasetView(d));
  });

  app.put(
    '/api/v1/datasets/:dataset_id',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Update a dataset (the embedding model cannot change once it has chunks)' } },
    async (request) => {
      const { dataset_id } = request.params as { dataset_id: string };
      const current = await datasets.get(request.tenantId, dataset_id);
      if (!current) throw new AppError('NO_PERMISSION', `You don't own the dataset ${dataset_id}`);
      const b = parse(DatasetBody.partial(), request.body);
      if (b.embedding_model && b.embedding_model !== current.embedding_model && current.chunk_count > 0) {
        throw new AppError('BAD_REQUEST', `When chunk_num (${current.chunk_count}) > 0, embedding_model must remain ${current.embedding_model}`);
      }
      if (b.name && b.name.toLowerCase() !== current.name.toLowerCase() && (await datasets.find(request.tenantId, b.name)))
        throw new AppError('DUPLICATE', `Dataset name '${b.name}' already exists`);
      const updated = await datasets.update(request.tenantId, dataset_id, {
        ...(b.name ? { name: b.name } : {}),
        ...(b.description !== undefined ? { description: b.description } : {}),
        ...(b.avatar !== undefined ? { avatar: b.avatar } : {}),
        ...(b.chunk_method ? { chunkMethod: b.chunk_method } : {}),
        ...(b.parser_config ? { parserConfig: { ...current.parser_config, ...b.parser_config } } : {}),
      });
      return ragflowResult(datasetView(updated!));
    },
  );

  app.delete(
    '/api/v1/datasets',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Delete datasets ({ids}; their documents and chunks go too)' } },
    async (request) => {
      const b = parse(z.object({ ids: z.array(z.string()).nullish() }), request.body);
      const ids = b.ids ?? [];
      for (const id of ids) if (!(await datasets.get(request.tenantId, id))) throw new AppError('NO_PERMISSION', `You don't own the dataset ${id}`);
      for (const id of ids) {
        const docs = await store.knowledge.documents.list(request.tenantId, id, { page: 1, pageSize: 0, orderby: 'create_time', desc: false });
        await stopIndexing(
          deps,
          docs.items.filter((d) => d.run === 'RUNNING').map((d) => d.id),
        );
      }
      const deleted = await datasets.delete(request.tenantId, ids);
      await knowledgeOf(deps).index.removeDatasets(request.tenantId, deleted);
      return { code: 0 };
    },
  );
}
