/**
 * RAGFlow's dataset side routes (api/apps/restful_apis/dataset_api.py and document_api.py):
 * document metadata (summary, batch update, flattened view, auto-metadata config), tags,
 * ingestion summary and logs, the knowledge graph and the graph/RAPTOR/mind map index tasks (the
 * dataset search is datasetSearch.ts). Codes and wording are RAGFlow's.
 *
 * What agent-canvas does not have is answered as RAGFlow answers an empty dataset: chunks carry
 * no tags (tag lists are empty, deleting or renaming tags changes nothing), there are no
 * ingestion logs, no knowledge graph (`{graph: {}, mind_map: {}}`) and no index task (tracing
 * answers `{}`, deleting succeeds); starting a graph/RAPTOR/mind map task is refused.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { manualFilter, matchesMeta } from '../../src/io/knowledge/metaFilter';
import type { DatasetRecord, DocumentRecord } from '../../src/io/store/knowledgeTypes';
import type { AppDeps } from '../deps';
import { formatPyErrors, INVALID, py, type PyError } from '../pyValidate';
import { jsonObjectBody, lenientBody } from '../ragflowBody';
import { documentView } from '../services/knowledge';
import { applyMetadataChanges, flattenMetas, metadataSummary } from '../services/documentMetadata';
import { AppError } from '../../src/errors';

/** RAGFlow's error envelope code (datasets.ts has the same; imported from there it would be a cycle). */
export const rf = (code: number, message: string) => new AppError(code === 101 ? 'BAD_REQUEST' : 'NOT_FOUND', message, { ragflowCode: code });

const ragflow = { ragflow: true } as const;
const doc = (summary: string) => ({ config: ragflow, schema: { tags: ['datasets'], summary } });

/** RAGFlow's `_VALID_INDEX_TYPES` (the structure kinds included). */
const INDEX_TYPES = [
  'graph',
  'raptor',
  'mindmap',
  'wiki',
  'skill',
  'structure_graph',
  'structure_mindmap',
  'timeline',
  'session_graph',
  'session_essence',
  'structure',
];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const autoMetadataField = py.model(
  'AutoMetadataField',
  {
    key: {
      v: py.pipe(py.str({ max: 255 }), (v, loc, errors, input) => {
        const s = (v as string).trim();
        if (!s) {
          errors.push({ loc, msg: 'String should have at least 1 character', input });
          return INVALID;
        }
        return s;
      }),
      required: true,
    },
    type: { v: py.literal(['string', 'list', 'time', 'number']), required: true },
    description: { v: py.nullable(py.str({ max: 65535 })), default: null },
    enum: { v: py.nullable(py.list(py.str())), default: null },
  },
  { extra: 'forbid' },
);

const autoMetadataConfig = py.model(
  'AutoMetadataConfig',
  { metadata: { v: py.list(autoMetadataField), default: () => [] }, built_in_metadata: { v: py.list(autoMetadataField), default: () => [] } },
  { extra: 'forbid' },
);

export async function metadataRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const k = deps.store.knowledge;

  const ownDataset = async (request: FastifyRequest, message: (id: string) => string): Promise<DatasetRecord> => {
    const { dataset_id } = request.params as { dataset_id: string };
    const d = await k.datasets.get(request.tenantId, dataset_id);
    if (!d) throw rf(102, message(dataset_id));
    return d;
  };
  const allDocs = async (tenantId: string, datasetId: string): Promise<DocumentRecord[]> =>
    (await k.documents.list(tenantId, datasetId, { page: 1, pageSize: 0, orderby: 'create_time', desc: false })).items;
  const query = (request: FastifyRequest) => (request.query ?? {}) as Record<string, string | undefined>;
  const idList = (raw: string | undefined) => (raw ?? '').split(',').filter(Boolean);

  // ---- metadata -------------------------------------------------------------------------------

  app.get('/api/v1/datasets/:dataset_id/metadata/summary', doc('Metadata summary of the documents of a dataset'), async (request) => {
    const d = await ownDataset(request, (id) => `You don't own the dataset ${id}. `);
    const docIds = idList(query(request).doc_ids);
    const rows = await k.documents.metas(request.tenantId, [d.id]);
    const metas = rows.filter((r) => docIds.length === 0 || docIds.includes(r.id)).map((r) => r.meta_fields ?? {});
    return { code: 0, data: { summary: metadataSummary(metas) } };
  });

  const batchUpdate = async (request: FastifyRequest) => {
    const d = await ownDataset(request, (id) => `You don't own the dataset ${id}.`);
    const req = lenientBody(request);
    const selector = req.selector || {};
    const updates = req.updates || [];
    const deletes = req.deletes || [];
    if (!isObject(selector)) throw rf(102, 'selector must be an object.');
    if (!Array.isArray(updates) || !Array.isArray(deletes)) throw rf(102, 'updates and deletes must be lists.');
    const condition = selector.metadata_condition || {};
    if (condition && !isObject(condition)) throw rf(102, 'metadata_condition must be an object.');
    const documentIds = selector.document_ids || [];
    if (!Array.isArray(documentIds)) throw rf(102, 'document_ids must be a list.');
    for (const u of updates) if (!isObject(u) || !u.key || !('value' in u)) throw rf(102, 'Each update requires key and value.');
    for (const x of deletes) if (!isObject(x) || !x.key) throw rf(102, 'Each delete requires key.');
    const rows = await k.documents.metas(request.tenantId, [d.id]);
    const metaOf = new Map(rows.map((r) => [r.id, r.meta_fields ?? {}]));
    let targets = new Set<string>();
    if (documentIds.length > 0) {
      const invalid = [...new Set(documentIds.map(String))].filter((id) => !metaOf.has(id));
      if (invalid.length > 0) throw rf(102, `These documents do not belong to dataset ${d.id}: ${invalid.join(', ')}`);
      targets = new Set(documentIds.map(String));
    }
    const cond = condition as Record<string, unknown>;
    if (Object.keys(cond).length > 0) {
      const conditions = (Array.isArray(cond.conditions) ? (cond.conditions as Array<Record<string, unknown>>) : []).map((c) => ({
        key: c.name ?? c.key,
        op: c.comparison_operator ?? c.op,
        value: c.value,
      }));
      const filter = conditions.length ? manualFilter({ method: 'manual', manual: conditions, logic: cond.logic }) : null;
      // RAGFlow intersects the condition's documents with the selected ids.
      targets = new Set([...targets].filter((id) => !filter || matchesMeta(metaOf.get(id) ?? {}, filter)));
      if (conditions.length > 0 && targets.size === 0) return { code: 0, data: { updated: 0, matched_docs: 0 } };
    }
    let updated = 0;
    for (const id of targets) {
      const meta = structuredClone(metaOf.get(id) ?? {});
      if (applyMetadataChanges(meta, updates as Array<Record<string, unknown>>, deletes as Array<Record<string, unknown>>)) {
        await k.documents.update(request.tenantId, id, { metaFields: meta });
        updated += 1;
      }
    }
    return { code: 0, data: { updated, matched_docs: targets.size } };
  };
  app.patch('/api/v1/datasets/:dataset_id/documents/metadatas', doc('Update the metadata of selected documents'), batchUpdate);
  app.post('/api/v1/datasets/:dataset_id/metadata/update', doc('Update the metadata of selected documents (older route)'), batchUpdate);

  app.get('/api/v1/datasets/metadata/flattened', doc('Flattened metadata of datasets ({key: {value: [document ids]}})'), async (request) => {
    const ids = idList(query(request).dataset_ids);
    if (ids.length === 0) throw rf(102, 'Lack of "dataset_ids" in query parameters');
    for (const id of ids) if (!(await k.datasets.get(request.tenantId, id))) throw rf(102, `No authorization for dataset '${id}'`);
    return { code: 0, data: flattenMetas(await k.documents.metas(request.tenantId, ids)) };
  });

  app.get('/api/v1/datasets/:dataset_id/metadata/config', doc('Auto-metadata configuration of a dataset'), async (request) => {
    const d = await ownDataset(request, (id) => `User '${request.tenantId}' lacks permission for dataset '${id}'`);
    const pc = d.parser_config ?? {};
    return { code: 0, data: { metadata: pc.metadata || [], built_in_metadata: pc.built_in_metadata || [] } };
  });

  app.put('/api/v1/datasets/:dataset_id/metadata/config', doc('Set the auto-metadata configuration of a dataset'), async (request) => {
    const body = jsonObjectBody(request);
    const errors: PyError[] = [];
    const cfg = autoMetadataConfig(body, [], errors);
    if (cfg === INVALID || errors.length > 0) throw rf(101, formatPyErrors(errors));
    const d = await ownDataset(request, (id) => `User '${request.tenantId}' lacks permission for dataset '${id}'`);
    const c = cfg as Record<string, unknown>;
    await k.datasets.update(request.tenantId, d.id, { parserConfig: { ...d.parser_config, metadata: c.metadata, built_in_metadata: c.built_in_metadata } });
    return { code: 0, data: c };
  });

  app.put('/api/v1/datasets/:dataset_id/documents/:document_id/metadata/config', doc('Set the metadata configuration of a document'), async (request) => {
    const { dataset_id, document_id } = request.params as { dataset_id: string; document_id: string };
    const d = await k.datasets.get(request.tenantId, dataset_id);
    if (!d) throw rf(102, "you don't own the dataset");
    const found = await k.documents.get(request.tenantId, document_id);
    if (!found || found.dataset_id !== d.id) throw rf(102, `document ${document_id} not found in dataset ${dataset_id}`);
    const req = lenientBody(request);
    if (!('metadata' in req)) throw rf(101, 'metadata is required');
    await k.documents.update(request.tenantId, found.id, { parserConfig: { ...found.parser_config, metadata: req.metadata } });
    const fresh = await k.documents.get(request.tenantId, found.id);
    if (!fresh) throw rf(102, 'document not found');
    return { code: 0, data: documentView(fresh, d.chunk_method) };
  });

  // ---- tags (our chunks carry none) -----------------------------------------------------------

  app.get('/api/v1/datasets/tags/aggregation', doc('Tags of datasets with their counts'), async (request) => {
    const ids = idList(query(request).dataset_ids);
    if (ids.length === 0) throw rf(102, 'Lack of dataset_ids in query parameters');
    for (const id of ids) if (!(await k.datasets.get(request.tenantId, id))) throw rf(102, `No authorization for dataset '${id}'`);
    return { code: 0, data: [] };
  });
  app.get('/api/v1/datasets/:dataset_id/tags', doc('Tags of a dataset'), async (request) => {
    await ownDataset(request, () => 'no authorization');
    return { code: 0, data: [] };
  });
  app.delete('/api/v1/datasets/:dataset_id/tags', doc('Remove tags from the chunks of a dataset'), async (request) => {
    const req = lenientBody(request);
    await ownDataset(request, () => 'no authorization');
    if (!Array.isArray(req.tags) || req.tags.some((t) => typeof t !== 'string')) throw rf(101, '`tags` should be a list of strings');
    return { code: 0, data: {} };
  });
  app.put('/api/v1/datasets/:dataset_id/tags', doc('Rename a tag in the chunks of a dataset'), async (request) => {
    const req = lenientBody(request);
    const from = typeof req.from_tag === 'string' ? req.from_tag.trim() : '';
    const to = typeof req.to_tag === 'string' ? req.to_tag.trim() : '';
    if (!from || !to) throw rf(101, '`from_tag` and `to_tag` are required');
    await ownDataset(request, () => 'no authorization');
    return { code: 0, data: { from: req.from_tag, to: req.to_tag } };
  });

  // ---- ingestion ------------------------------------------------------------------------------

  app.get('/api/v1/datasets/:dataset_id/ingestions/summary', doc('Document, chunk and token counts and parsing states of a dataset'), async (request) => {
    const d = await ownDataset(request, (id) => `User '${request.tenantId}' lacks permission for dataset '${id}'`);
    const docs = await allDocs(request.tenantId, d.id);
    const count = (run: string) => docs.filter((x) => x.run === run).length;
    return {
      code: 0,
      data: {
        doc_num: docs.length,
        chunk_num: docs.reduce((n, x) => n + x.chunk_count, 0),
        token_num: docs.reduce((n, x) => n + x.token_count, 0),
        status: {
          unstart_count: count('UNSTART'),
          running_count: count('RUNNING'),
          cancel_count: count('CANCEL'),
          done_count: count('DONE'),
          fail_count: count('FAIL'),
        },
      },
    };
  });
  app.get('/api/v1/datasets/:dataset_id/ingestions', doc('Ingestion logs of a dataset (agent-canvas keeps none)'), async (request) => {
    await ownDataset(request, () => 'no authorization');
    const q = query(request);
    const logType = q.log_type ?? 'dataset';
    if (logType !== 'dataset' && logType !== 'file') throw rf(102, 'Invalid "log_type", expected "dataset" or "file"');
    return { code: 0, data: { total: 0, logs: [] } };
  });
  app.get('/api/v1/datasets/:dataset_id/ingestions/:log_id', doc('One ingestion log'), async (request) => {
    await ownDataset(request, () => 'no authorization');
    throw rf(102, 'Log not found');
  });

  // ---- knowledge graph and index tasks (agent-canvas builds neither) -----------------------------

  app.get('/api/v1/datasets/:dataset_id/graph', doc('Knowledge graph of a dataset (agent-canvas builds none: empty)'), async (request) => {
    await ownDataset(request, () => 'no authorization');
    return { code: 0, data: { graph: {}, mind_map: {} } };
  });

  const indexType = (request: FastifyRequest) => (query(request).type ?? '').toLowerCase();
  const invalidType = (t: string) =>
    rf(
      102,
      `Invalid index type '${t}'. Must be one of [${[...INDEX_TYPES]
        .sort()
        .map((x) => `'${x}'`)
        .join(', ')}]`,
    );
  app.post('/api/v1/datasets/:dataset_id/index', doc('Start a graph, RAPTOR or mind map task (not available in agent-canvas)'), async (request) => {
    const t = indexType(request);
    if (!INDEX_TYPES.includes(t)) throw invalidType(t);
    const d = await ownDataset(request, () => 'no authorization');
    const docs = (await allDocs(request.tenantId, d.id)).filter((x) => x.status !== '0');
    if (docs.length === 0) throw rf(102, `No documents in Dataset ${d.id}`);
    throw rf(102, `The ${t} index is not available in agent-canvas.`);
  });
  app.get('/api/v1/datasets/:dataset_id/index', doc('Trace the index task of a dataset (none in agent-canvas: {})'), async (request) => {
    const t = indexType(request);
    if (!INDEX_TYPES.includes(t)) throw invalidType(t);
    await ownDataset(request, () => 'no authorization');
    return { code: 0, data: {} };
  });
  const deleteIndex = async (request: FastifyRequest) => {
    const { index_type } = request.params as { index_type?: string };
    const t = (index_type || indexType(request)).toLowerCase();
    if (!INDEX_TYPES.includes(t)) throw rf(101, `Invalid index type '${t}'`);
    await ownDataset(request, () => 'no authorization');
    return { code: 0, data: {} };
  };
  app.delete('/api/v1/datasets/:dataset_id/index', doc('Delete the index of a dataset (none in agent-canvas)'), deleteIndex);
  app.delete('/api/v1/datasets/:dataset_id/:index_type', doc('Delete a graph, RAPTOR or mind map index (none in agent-canvas)'), deleteIndex);
}
