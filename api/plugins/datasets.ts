/**
 * RAGFlow's dataset routes (`/api/v1/datasets`): create, list, get, update, delete, with RAGFlow's
 * validation (api/utils/validation_utils.py), codes and wording. A dataset keeps the embedding
 * model it was created with (an OpenAI-compatible endpoint when configured, else the offline
 * embedding); chunking follows its `parser_config`. A duplicate name on create becomes `name(1)`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { datasetEmbeddingModel, embeddingUnavailable, sameEmbedding } from '../../src/io/knowledge/embedder';
import { AppError } from '../../src/errors';
import type { DatasetRecord } from '../../src/io/store/knowledgeTypes';
import type { AppDeps } from '../deps';
import { formatPyErrors, INVALID, uuidHex } from '../pyValidate';
import { jsonObjectBody, keepRawBodies } from '../ragflowBody';
import { deleteRequestModel, listDatasetModel, validateDatasetRequest } from '../services/datasetRequests';
import { deepMerge, parserConfigFor, uniqueName } from '../services/datasetDefaults';
import { datasetView, knowledgeOf, stopIndexing } from '../services/knowledge';
import { datasetSearchRoutes } from './datasetSearch';
import { metadataRoutes } from './knowledgeExtras';
import { requirePipelineCanvas } from '../services/pipelines';

const ragflow = { ragflow: true } as const;

/** A RAGFlow error answer: 101 argument, 102 data, 103 operating, 108 permission, 109 authentication. */
export function rf(code: number, message: string): AppError {
  return new AppError(code === 101 ? 'BAD_REQUEST' : 'NOT_FOUND', message, { ragflowCode: code });
}

export const lacksPermission = (tenantId: string, what: string) => rf(102, `User '${tenantId}' lacks permission for dataset '${what}'`);

/** The tenant's default chat model, which RAGFlow writes into a new dataset's parser_config as `llm_id`. */
function defaultLlmId(deps: AppDeps): string {
  return deps.runSettings.toolCalling?.defaultModelId ?? process.env.DEFAULT_LLM_ID ?? '';
}

/** Query values as RAGFlow's `request.args.to_dict()` sees them (first value), lists kept for list fields. */
export function queryArgs(request: FastifyRequest, listFields: string[] = []): Record<string, unknown> {
  const q = (request.query ?? {}) as Record<string, string | string[] | undefined>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    if (listFields.includes(k)) out[k] = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).filter(Boolean);
    else out[k] = Array.isArray(v) ? v[0] : v;
  }
  return out;
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '23505';
}

export async function datasetsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  const datasets = store.knowledge.datasets;
  keepRawBodies(app);

  const withExtras = async (d: DatasetRecord, extra: Record<string, unknown> = {}) => ({ ...datasetView(d), ...extra });

  app.post('/api/v1/datasets', { config: ragflow, schema: { tags: ['datasets'], summary: 'Create a dataset' } }, async (request) => {
    const raw = jsonObjectBody(request);
    const r = validateDatasetRequest(raw, 'create');
    if (!r.ok) throw rf(101, formatPyErrors(r.errors));
    const b = r.value;
    const embedding = knowledgeOf(deps).embedding;
    const model = datasetEmbeddingModel(b.embedding_model as string | null, embedding);
    if (b.embedding_model) {
      const why = embeddingUnavailable(model, embedding);
      if (why) throw rf(102, why);
    }
    const pipelineId = (b.pipeline_id as string | null | undefined) ?? null;
    if (pipelineId) await requirePipelineCanvas(store, request.tenantId, pipelineId);
    const chunkMethod = (b.chunk_method as string | null) ?? 'naive';
    const parserConfig = { ...parserConfigFor(chunkMethod, b.parser_config as Record<string, unknown> | null), llm_id: defaultLlmId(deps) };
    for (let attempt = 0; ; attempt++) {
      const name = await uniqueName(b.name as string, async (candidate) => {
        const found = await datasets.find(request.tenantId, candidate);
        return Boolean(found && found.name.toLowerCase() === candidate.toLowerCase());
      });
      try {
        const created = await datasets.create({
          tenantId: request.tenantId,
          name,
          description: (b.description as string | null) ?? null,
          avatar: (b.avatar as string | null) ?? null,
          embeddingModel: model,
          chunkMethod,
          parserConfig,
          permission: b.permission as string,
          pipelineId,
        });
        return { code: 0, data: await withExtras(created) };
      } catch (err) {
        // Two requests took the same free name at once: the loser takes the next one.
        if (!isUniqueViolation(err) || attempt >= 20) throw err;
      }
    }
  });

  app.get('/api/v1/datasets', { config: ragflow, schema: { tags: ['datasets'], summary: 'List datasets' } }, async (request) => {
    const args = queryArgs(request, ['ids']);
    if (args.type === 'filter') {
      const all = await datasets.list(request.tenantId, { page: 1, pageSize: 0, orderby: 'create_time', desc: true });
      const owners = [{ id: request.tenantId, nickname: request.tenantId, count: all.total }];
      return { code: 0, data: { filter: { owner: owners }, total: all.total } };
    }
    const errors: Parameters<typeof listDatasetModel>[2] = [];
    const v = listDatasetModel(args, [], errors);
    if (v === INVALID || errors.length > 0) throw rf(101, formatPyErrors(errors));
    const a = v as Record<string, unknown>;
    const id = a.id as string | null;
    const name = a.name as string | null;
    let ids = a.ids as string[] | null;
    if (id && ids?.length) throw rf(102, `Should not provide both 'id':${id} and 'ids'${JSON.stringify(ids)}`);
    if (id && !(await datasets.get(request.tenantId, id))) throw lacksPermission(request.tenantId, id);
    if (name) {
      const byName = await datasets.list(request.tenantId, { page: 1, pageSize: 1, orderby: 'create_time', desc: true, name });
      if (byName.total === 0) throw lacksPermission(request.tenantId, name);
    }
    if (ids && ids.length > 0) {
      const owned = await datasets.list(request.tenantId, { page: 1, pageSize: 0, orderby: 'create_time', desc: true, ids });
      ids = ids.filter((x) => owned.items.some((d) => d.id === x));
      if (ids.length === 0) return { code: 0, data: [], total: 0, total_datasets: 0 };
    } else ids = null;
    const ext = (a.ext ?? {}) as Record<string, unknown>;
    const { items, total } = await datasets.list(request.tenantId, {
      page: a.page as number,
      pageSize: a.page_size as number,
      orderby: a.orderby as string,
      desc: a.desc as boolean,
      ...(name ? { name } : {}),
      ...(id ? { id } : {}),
      ...(ids ? { ids } : {}),
    });
    let list = items;
    if (typeof ext.keywords === 'string' && ext.keywords) list = list.filter((d) => d.name.toLowerCase().includes((ext.keywords as string).toLowerCase()));
    if (typeof ext.parser_id === 'string' && ext.parser_id) list = list.filter((d) => d.chunk_method === ext.parser_id);
    const data = await Promise.all(
      list.map(async (d) => {
        const extra: Record<string, unknown> = { nickname: d.tenant_id, tenant_avatar: null, embedding_model_name: d.embedding_model };
        if (a.include_parsing_status) extra.parsing_status = await parsingStatus(request.tenantId, d.id);
        return withExtras(d, extra);
      }),
    );
    return { code: 0, data, total_datasets: total, total };
  });

  async function parsingStatus(tenantId: string, datasetId: string): Promise<Record<string, number>> {
    const docs = await store.knowledge.documents.list(tenantId, datasetId, { page: 1, pageSize: 0, orderby: 'create_time', desc: false });
    const counts: Record<string, number> = { unstart_count: 0, running_count: 0, cancel_count: 0, done_count: 0, fail_count: 0 };
    for (const d of docs.items) counts[`${d.run.toLowerCase()}_count`] = (counts[`${d.run.toLowerCase()}_count`] ?? 0) + 1;
    return counts;
  }

  app.get('/api/v1/datasets/:dataset_id', { config: ragflow, schema: { tags: ['datasets'], summary: 'Get a dataset' } }, async (request) => {
    const { dataset_id } = request.params as { dataset_id: string };
    const d = await datasets.get(request.tenantId, dataset_id);
    if (!d) throw lacksPermission(request.tenantId, dataset_id);
    const docs = await store.knowledge.documents.list(request.tenantId, d.id, { page: 1, pageSize: 0, orderby: 'create_time', desc: false });
    return { code: 0, data: await withExtras(d, { size: docs.items.reduce((n, x) => n + x.size, 0), connectors: d.connectors }) };
  });

  app.put('/api/v1/datasets/:dataset_id', { config: ragflow, schema: { tags: ['datasets'], summary: 'Update a dataset' } }, async (request) => {
    const { dataset_id } = request.params as { dataset_id: string };
    const raw = jsonObjectBody(request);
    const r = validateDatasetRequest(raw, 'update', dataset_id);
    if (!r.ok) throw rf(101, formatPyErrors(r.errors));
    const req = r.value;
    if (Object.keys(req).length === 0) throw rf(102, 'no properties were modified');
    const id = uuidHex(dataset_id)!;
    const kb = await datasets.get(request.tenantId, id);
    if (!kb) throw lacksPermission(request.tenantId, dataset_id);
    const patch: Parameters<typeof datasets.update>[2] = {};
    const ext = (req.ext ?? {}) as Record<string, unknown>;
    let parserConfig = req.parser_config as Record<string, unknown> | null | undefined;
    if (parserConfig) {
      const pc = (parserConfig.parent_child ?? {}) as Record<string, unknown>;
      parserConfig = { ...parserConfig };
      if (pc.use_parent_child) {
        parserConfig.children_delimiter = pc.children_delimiter ?? '\n';
        parserConfig.enable_children = true;
      } else {
        parserConfig.children_delimiter = '';
        parserConfig.enable_children = false;
        parserConfig.parent_child = {};
      }
      const pext = (parserConfig.ext ?? {}) as Record<string, unknown>;
      delete parserConfig.ext;
      patch.parserConfig = deepMerge(kb.parser_config, { ...parserConfig, ...pext });
    }
    const chunkMethod = req.chunk_method as string | undefined;
    if (chunkMethod && chunkMethod !== kb.chunk_method) {
      patch.chunkMethod = chunkMethod;
      if (!parserConfig) patch.parserConfig = parserConfigFor(chunkMethod, null);
    }
    if ('pipeline_id' in req) {
      const pipelineId = (req.pipeline_id as string | null) || null;
      if (pipelineId) await requirePipelineCanvas(store, request.tenantId, pipelineId);
      patch.pipelineId = pipelineId;
    } else if (kb.pipeline_id && chunkMethod) patch.pipelineId = null; // RAGFlow: a chunk method replaces the pipeline
    if (typeof req.name === 'string' && req.name.toLowerCase() !== kb.name.toLowerCase()) {
      const exists = await datasets.find(request.tenantId, req.name);
      if (exists && exists.name.toLowerCase() === req.name.toLowerCase()) throw rf(102, `Dataset name '${req.name}' already exists`);
    }
    if (typeof req.name === 'string') patch.name = req.name;
    if ('embedding_model' in req) {
      const embedding = knowledgeOf(deps).embedding;
      const model = (req.embedding_model as string | null) || kb.embedding_model;
      const why = model === kb.embedding_model ? null : embeddingUnavailable(model, embedding);
      if (why) throw rf(102, why);
      if (!sameEmbedding(model, kb.embedding_model, embedding) && kb.chunk_count > 0)
        throw rf(
          102,
          `The dataset has ${kb.chunk_count} chunks embedded with ${kb.embedding_model}: parse its documents again after changing the model, or keep it`,
        );
      patch.embeddingModel = model;
    }
    if ('description' in req) patch.description = req.description as string | null;
    if ('avatar' in req) patch.avatar = req.avatar as string | null;
    if ('permission' in req) patch.permission = req.permission as string;
    if ('pagerank' in req) patch.pagerank = req.pagerank as number;
    if ('language' in req && req.language) patch.language = req.language as string;
    if ('connectors' in req) patch.connectors = req.connectors as unknown[];
    if (typeof ext.language === 'string') patch.language = ext.language;
    const updated = await datasets.update(request.tenantId, id, patch);
    if (!updated) throw rf(102, 'Dataset updated failed');
    return { code: 0, data: await withExtras(updated, { connectors: (req.connectors as unknown[] | undefined) ?? [] }) };
  });

  app.delete(
    '/api/v1/datasets',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Delete datasets ({ids}, or {delete_all: true}); their documents and chunks go too' } },
    async (request) => {
      const raw = jsonObjectBody(request);
      const errors: Parameters<typeof listDatasetModel>[2] = [];
      const v = deleteRequestModel(true)(raw, [], errors);
      if (v === INVALID || errors.length > 0) throw rf(101, formatPyErrors(errors));
      const { ids: given, delete_all } = v as { ids: string[] | null; delete_all: boolean };
      let ids = given ?? [];
      if (ids.length === 0) {
        if (!delete_all) return { code: 0, data: { success_count: 0 } };
        ids = (await datasets.list(request.tenantId, { page: 1, pageSize: 0, orderby: 'create_time', desc: false })).items.map((d) => d.id);
      }
      const missing: string[] = [];
      for (const id of ids) if (!(await datasets.get(request.tenantId, id))) missing.push(id);
      if (missing.length > 0) throw rf(102, `User '${request.tenantId}' lacks permission for datasets: '${missing.join(', ')}'`);
      for (const id of ids) {
        const docs = await store.knowledge.documents.list(request.tenantId, id, { page: 1, pageSize: 0, orderby: 'create_time', desc: false });
        await stopIndexing(
          deps,
          docs.items.filter((d) => d.run === 'RUNNING').map((d) => d.id),
        );
      }
      const deleted = await datasets.delete(request.tenantId, ids);
      await knowledgeOf(deps).index.removeDatasets(request.tenantId, deleted);
      return { code: 0, data: { success_count: deleted.length } };
    },
  );

  await metadataRoutes(app, deps);
  await datasetSearchRoutes(app, deps);
}
