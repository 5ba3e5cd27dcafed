/**
 * RAGFlow's document routes of a dataset (api/apps/restful_apis/document_api.py): upload
 * (multipart `file`, one or more; a name already in the dataset becomes `a(1).txt`), list, get
 * (download), update (PATCH, and PUT), delete (ids or `delete_all`), parse (index) and stop.
 * Indexing runs as a Temporal workflow per document; its progress is the document's
 * `run`/`progress`/`progress_msg`. Codes and wording are RAGFlow's.
 */
import { pyRepr } from '../../src/core/components/pyValues';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DatasetRecord, DocumentRecord } from '../../src/io/store/knowledgeTypes';
import type { AppDeps } from '../deps';
import { formatPyErrors, INVALID, type PyError } from '../pyValidate';
import { jsonObjectBody, keepRawBodies, lenientBody } from '../ragflowBody';
import { deleteRequestModel } from '../services/datasetRequests';
import { uniqueName } from '../services/datasetDefaults';
import { documentView, knowledgeOf, startIndexing, stopIndexing } from '../services/knowledge';
import { partBytes, uploadedFiles } from '../multipartUpload';
import { restPage, restPageSize } from './restPaging';
import { rf } from './datasets';
import { FILE_NAME_LEN_LIMIT, sendDocument, storedType } from './documentRequests';
import { documentUpdate } from './documentUpdate';
import { rawDocumentRoutes } from './rawDocuments';

const ragflow = { ragflow: true } as const;

export interface DocumentRoutesOptions {
  /** Largest accepted file, bytes. */
  maxFileBytes?: number;
}

export async function documentsPlugin(app: FastifyInstance, deps: AppDeps, opts: DocumentRoutesOptions = {}): Promise<void> {
  const { store } = deps;
  const k = store.knowledge;
  keepRawBodies(app);
  // `/datasets//documents…` (an empty dataset id): RAGFlow's router answers 405, which its error
  // handler wraps as code 100 with the exception's repr.
  app.addHook('preValidation', async (request, reply) => {
    const params = request.params as { dataset_id?: string } | undefined;
    if (params?.dataset_id === '') return reply.send({ code: 100, message: "<MethodNotAllowed '405: Method Not Allowed'>" });
  });
  await app.register(multipart, { limits: { fileSize: opts.maxFileBytes ?? 100 * 1024 * 1024, files: 1000, fields: 16 } });

  async function dataset(request: FastifyRequest): Promise<DatasetRecord> {
    const { dataset_id } = request.params as { dataset_id: string };
    const d = await k.datasets.get(request.tenantId, dataset_id);
    if (!d) throw rf(102, `You don't own the dataset ${dataset_id}. `);
    return d;
  }

  const allDocs = async (tenantId: string, datasetId: string) =>
    (await k.documents.list(tenantId, datasetId, { page: 1, pageSize: 0, orderby: 'create_time', desc: false })).items;

  app.post(
    '/api/v1/datasets/:dataset_id/documents',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Upload documents (multipart `file`); `parse=true` starts indexing' } },
    async (request) => {
      const { dataset_id } = request.params as { dataset_id: string };
      const d = await k.datasets.get(request.tenantId, dataset_id);
      if (!d) throw rf(102, `Can't find the dataset with ID ${dataset_id}!`);
      const uploadType = String((request.query as { type?: string }).type ?? 'local').toLowerCase();
      if (uploadType !== 'local') throw rf(101, '`type` must be one of "local", "web", or "empty".');
      if (!request.isMultipart()) throw rf(101, 'No file part!');
      const files: Array<{ name: string; type: string | null; content: Uint8Array }> = [];
      let parseNow = (request.query as { parse?: string }).parse === 'true';
      const parts = uploadedFiles(request, (field) => {
        if (field.fieldname === 'parse') parseNow = String(field.value) === 'true';
      });
      for await (const part of parts) {
        const name = part.filename ?? '';
        const content = await partBytes(part);
        if (!name) throw rf(101, 'No file selected!');
        if (Buffer.byteLength(name, 'utf8') > FILE_NAME_LEN_LIMIT) throw rf(101, `File name must be ${FILE_NAME_LEN_LIMIT} bytes or less.`);
        if (part.file.truncated) throw rf(101, `${name} is larger than the upload limit`);
        files.push({ name, type: storedType(name), content });
      }
      if (files.length === 0) throw rf(101, 'No file part!');
      const errors = files.filter((f) => !f.type).map((f) => `${f.name}: This type of file has not been supported yet!`);
      const created: DocumentRecord[] = [];
      for (const f of files) {
        if (!f.type) continue;
        const name = await uniqueName(
          f.name,
          async (candidate) =>
            (await k.documents.list(request.tenantId, d.id, { page: 1, pageSize: 1, orderby: 'create_time', desc: false, name: candidate })).total > 0,
        );
        created.push(
          await k.documents.create({ tenantId: request.tenantId, datasetId: d.id, name, type: f.type, content: f.content, parserConfig: d.parser_config }),
        );
      }
      if (created.length === 0) throw rf(500, errors.join('\n'));
      if (parseNow)
        await startIndexing(
          deps,
          request.tenantId,
          created.map((c) => c.id),
        );
      const fresh = await Promise.all(created.map(async (c) => (await k.documents.get(request.tenantId, c.id)) ?? c));
      const data = fresh.map((c) => documentView(c, d.chunk_method));
      if (errors.length > 0) return { code: 500, message: errors.join('\n'), data };
      return { code: 0, data };
    },
  );

  app.get(
    '/api/v1/datasets/:dataset_id/documents',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'List the documents of a dataset (with their indexing progress)' } },
    async (request) => {
      const d = await dataset(request);
      const q = (request.query ?? {}) as Record<string, string | string[] | undefined>;
      const first = (name: string) => (Array.isArray(q[name]) ? q[name][0] : q[name]);
      const many = (...names: string[]) =>
        names
          .flatMap((n) => [q[n], q[`${n}[]`]])
          .flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
          .map((v) => String(v).trim())
          .filter(Boolean);
      const page = restPage(first('page'), 1);
      const pageSize = restPageSize(first('page_size'));
      const orderby = first('orderby') ?? 'create_time';
      if (!['create_time', 'update_time', 'name'].includes(orderby)) throw rf(101, `invalid orderby field: ${orderby}`);
      const desc =
        String(first('desc') ?? 'true')
          .trim()
          .toLowerCase() !== 'false';
      const RUNS: Record<string, string> = { '0': 'UNSTART', '1': 'RUNNING', '2': 'CANCEL', '3': 'DONE', '4': 'FAIL' };
      const runs = many('run', 'run_status');
      const invalidRuns = runs.filter((r) => !RUNS[r] && !Object.values(RUNS).includes(r));
      if (invalidRuns.length > 0) throw rf(102, `Invalid filter run status conditions: ${invalidRuns.join(', ')}`);
      const mc = first('metadata_condition');
      let metaCondition: Record<string, unknown> | null = null;
      if (mc) {
        try {
          metaCondition = JSON.parse(mc) as Record<string, unknown>;
        } catch {
          throw rf(102, 'metadata_condition must be valid JSON.');
        }
        if (!metaCondition || typeof metaCondition !== 'object' || Array.isArray(metaCondition)) throw rf(102, 'metadata_condition must be an object.');
      }
      const id = first('id');
      const name = first('name');
      if (id && !(await k.documents.get(request.tenantId, id).then((x) => x && x.dataset_id === d.id))) throw rf(102, `you don't own the document ${id}`);
      if (name && (await k.documents.list(request.tenantId, d.id, { page: 1, pageSize: 1, orderby: 'create_time', desc: false, name })).total === 0)
        throw rf(102, `you don't own the document ${name}`);
      const ids = many('ids');
      if (ids.length > 100) throw rf(101, 'ids must contain at most 100 IDs');
      if (id && ids.length > 0) throw rf(102, `Should not provide both 'id':${id} and 'ids'${JSON.stringify(ids)}`);
      const suffixes = many('suffix');
      const result = await k.documents.list(request.tenantId, d.id, {
        page,
        pageSize,
        orderby,
        desc,
        keywords: first('keywords') || undefined,
        ...(id ? { id } : {}),
        ...(name ? { name } : {}),
        ...(ids.length ? { ids } : {}),
        ...(runs.length ? { runs: runs.map((r) => RUNS[r] ?? r) } : {}),
        ...(suffixes.length ? { suffixes } : {}),
      });
      let items = result.items;
      const from = Number(first('create_time_from') ?? 0) || 0;
      const to = Number(first('create_time_to') ?? 0) || 0;
      if (from || to) items = items.filter((x) => (!from || x.create_time >= from) && (!to || x.create_time <= to));
      if (metaCondition && Array.isArray(metaCondition.conditions) && metaCondition.conditions.length > 0) {
        const { manualFilter, matchesMeta } = await import('../../src/io/knowledge/metaFilter');
        const conditions = (metaCondition.conditions as Array<Record<string, unknown>>).map((c) => ({
          key: c.name ?? c.key,
          op: c.comparison_operator ?? c.op,
          value: c.value,
        }));
        const filter = manualFilter({ method: 'manual', manual: conditions, logic: metaCondition.logic });
        if (filter) items = items.filter((x) => matchesMeta(x.meta_fields, filter));
      }
      return { code: 0, message: 'success', data: { docs: items.map((doc) => documentView(doc, d.chunk_method)), total: result.total } };
    },
  );

  app.get(
    '/api/v1/datasets/:dataset_id/documents/:document_id',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Download a document (the file as uploaded)' } },
    async (request, reply) => {
      const { dataset_id, document_id } = request.params as { dataset_id: string; document_id: string };
      const d = await k.datasets.get(request.tenantId, dataset_id);
      if (!d) throw rf(102, 'document not found');
      const doc = await k.documents.get(request.tenantId, document_id);
      if (!doc) throw rf(102, 'document not found');
      if (doc.dataset_id !== d.id) throw rf(102, `The dataset not own the document ${document_id}.`);
      const content = await k.documents.content(doc.id);
      if (!content || content.byteLength === 0) return { code: 102, message: 'This file is empty.' };
      return sendDocument(reply, doc, content);
    },
  );

  rawDocumentRoutes(app, deps);

  const update = documentUpdate(deps);
  app.patch('/api/v1/datasets/:dataset_id/documents/:document_id', { config: ragflow, schema: { tags: ['datasets'], summary: 'Update a document' } }, update);
  app.put(
    '/api/v1/datasets/:dataset_id/documents/:document_id',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Update a document (as PATCH)' } },
    update,
  );

  app.delete(
    '/api/v1/datasets/:dataset_id/documents',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Delete documents ({ids}, or {delete_all: true})' } },
    async (request) => {
      const raw = jsonObjectBody(request);
      const errors: PyError[] = [];
      const v = deleteRequestModel(false)(raw, [], errors);
      if (v === INVALID || errors.length > 0) throw rf(101, formatPyErrors(errors));
      const d = await dataset(request);
      const { ids: given, delete_all } = v as { ids: string[] | null; delete_all: boolean };
      let ids = given ?? [];
      if (!delete_all && ids.length === 0) throw rf(102, `should either provide doc ids or set delete_all(true), dataset: ${d.id}. `);
      if (ids.length > 0 && delete_all) throw rf(102, `should not provide both doc ids and delete_all(true), dataset: ${d.id}. `);
      const docs = await allDocs(request.tenantId, d.id);
      if (delete_all) ids = docs.map((x) => x.id);
      const have = new Set(docs.map((x) => x.id));
      const invalid = ids.filter((x) => !have.has(x));
      if (invalid.length > 0) throw rf(102, `These documents do not belong to dataset ${d.id} or Document not found: ${invalid.join(', ')}`);
      await stopIndexing(deps, ids);
      const deleted = await k.documents.delete(request.tenantId, d.id, ids);
      await knowledgeOf(deps).index.removeDocuments(request.tenantId, deleted);
      return { code: 0, data: { deleted: deleted.length } };
    },
  );

  /** The ids asked for, once each, split into the dataset's and the unknown ones (RAGFlow checks each against the dataset). */
  async function documentIds(request: FastifyRequest, d: DatasetRecord): Promise<{ ids: string[]; notFound: string[] }> {
    const req = lenientBody(request);
    const list = req.document_ids;
    if (!Array.isArray(list) || list.length === 0) throw rf(102, '`document_ids` is required');
    const unique = [...new Set(list.map(String))];
    const have = new Set((await allDocs(request.tenantId, d.id)).map((x) => x.id));
    return { ids: unique.filter((id) => have.has(id)), notFound: unique.filter((id) => !have.has(id)) };
  }

  /** RAGFlow's report of unknown ids: the Python list (`Documents not found: ['a', 'b']`). */
  const notFoundReport = (notFound: string[]) => rf(102, `Documents not found: ${pyRepr(notFound)}`);

  // RAGFlow parses the valid documents of the list, then reports the unknown ones.
  const parseRoute = async (request: FastifyRequest) => {
    const d = await dataset(request);
    const { ids, notFound } = await documentIds(request, d);
    if (ids.length > 0) await startIndexing(deps, request.tenantId, ids);
    if (notFound.length > 0) throw notFoundReport(notFound);
    return { code: 0 };
  };
  // Stopping checks every id first: RAGFlow stops nothing when one is unknown.
  const stopRoute = async (request: FastifyRequest) => {
    const d = await dataset(request);
    const { ids, notFound } = await documentIds(request, d);
    if (notFound.length > 0) throw notFoundReport(notFound);
    const docs = await Promise.all(ids.map((id) => k.documents.get(request.tenantId, id)));
    const notRunning = docs.filter((x) => x && x.run !== 'RUNNING' && x.progress <= 0);
    if (notRunning.length > 0 && notRunning.length === docs.length) throw rf(102, "Can't stop parsing document that has not started or already completed");
    await stopIndexing(deps, ids);
    for (const x of docs) if (x && x.run === 'RUNNING') await k.documents.setProgress(x.id, { run: 'CANCEL' });
    return { code: 0 };
  };
  app.post(
    '/api/v1/datasets/:dataset_id/chunks',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Parse (index) documents ({document_ids})' } },
    parseRoute,
  );
  app.post(
    '/api/v1/datasets/:dataset_id/documents/parse',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Parse (index) documents ({document_ids})' } },
    parseRoute,
  );
  app.delete(
    '/api/v1/datasets/:dataset_id/chunks',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Stop parsing documents ({document_ids})' } },
    stopRoute,
  );
  app.post(
    '/api/v1/datasets/:dataset_id/documents/stop',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Stop parsing documents ({document_ids})' } },
    stopRoute,
  );
}
