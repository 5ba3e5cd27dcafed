/**
 * RAGFlow's document and chunk routes of a dataset: upload (multipart `file`, one or more),
 * list, delete, parse (index) and stop, and the chunks of a document. Indexing runs as a
 * Temporal workflow per document; its progress is the document's `run`/`progress`/`progress_msg`.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { documentTypeOf } from '../../src/io/knowledge/parse';
import { AppError } from '../../src/errors';
import type { DatasetRecord } from '../../src/io/store/knowledgeTypes';
import type { AppDeps } from '../deps';
import { ragflowResult } from '../envelope';
import { pageParams } from '../paging';
import { documentView, knowledgeOf, startIndexing, stopIndexing } from '../services/knowledge';

const ragflow = { ragflow: true } as const;
const IdsBody = z.object({ document_ids: z.array(z.string()).optional(), ids: z.array(z.string()).optional() });

export interface DocumentRoutesOptions {
  /** Largest accepted file, bytes. */
  maxFileBytes?: number;
}

function ids(raw: unknown, key: 'document_ids' | 'ids'): string[] {
  const r = IdsBody.safeParse(raw ?? {});
  if (!r.success)
    throw new AppError('BAD_REQUEST', `\`${key}\` should be a list of ids`, { problems: [{ path: `$.${key}`, message: 'must be a list of strings' }] });
  return r.data[key] ?? r.data.document_ids ?? r.data.ids ?? [];
}

export async function documentsPlugin(app: FastifyInstance, deps: AppDeps, opts: DocumentRoutesOptions = {}): Promise<void> {
  const { store } = deps;
  const k = store.knowledge;
  await app.register(multipart, { limits: { fileSize: opts.maxFileBytes ?? 100 * 1024 * 1024, files: 64, fields: 16 } });

  async function dataset(request: FastifyRequest): Promise<DatasetRecord> {
    const { dataset_id } = request.params as { dataset_id: string };
    const d = await k.datasets.get(request.tenantId, dataset_id);
    if (!d) throw new AppError('NO_PERMISSION', `You don't own the dataset ${dataset_id}.`);
    return d;
  }

  async function ownedDocuments(request: FastifyRequest, d: DatasetRecord, list: string[]): Promise<string[]> {
    for (const id of list) {
      const doc = await k.documents.get(request.tenantId, id);
      if (!doc || doc.dataset_id !== d.id) throw new AppError('NO_PERMISSION', `You don't own the document ${id}.`);
    }
    return list;
  }

  app.post(
    '/api/v1/datasets/:dataset_id/documents',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Upload documents (multipart `file`; txt, md, html, pdf); `parse=true` starts indexing' } },
    async (request) => {
      const d = await dataset(request);
      if (!request.isMultipart()) throw new AppError('BAD_REQUEST', 'No file part!');
      const files: Array<{ name: string; type: string; content: Uint8Array }> = [];
      let parseNow = (request.query as { parse?: string }).parse === 'true';
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === 'parse') parseNow = String(part.value) === 'true';
          continue;
        }
        const name = part.filename?.trim();
        if (!name) throw new AppError('BAD_REQUEST', 'No file selected!');
        const type = documentTypeOf(name);
        if (!type) throw new AppError('BAD_REQUEST', `${name}: this type of file has not been supported yet! (supported: txt, md, html, pdf)`);
        const content = new Uint8Array(await part.toBuffer());
        if (part.file.truncated) throw new AppError('BAD_REQUEST', `${name} is larger than the upload limit`);
        files.push({ name, type, content });
      }
      if (files.length === 0) throw new AppError('BAD_REQUEST', 'No file part!');
      const created = [];
      for (const f of files)
        created.push(await k.documents.create({ tenantId: request.tenantId, datasetId: d.id, name: f.name, type: f.type, content: f.content }));
      if (parseNow)
        await startIndexing(
          deps,
          request.tenantId,
          created.map((c) => c.id),
        );
      const fresh = await Promise.all(created.map(async (c) => (await k.documents.get(request.tenantId, c.id)) ?? c));
      return ragflowResult(fresh.map((c) => documentView(c, d.chunk_method)));
    },
  );

  app.get(
    '/api/v1/datasets/:dataset_id/documents',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'List the documents of a dataset (with their indexing progress)' } },
    async (request) => {
      const d = await dataset(request);
      const q = request.query as Record<string, string | undefined>;
      const { items, total } = await k.documents.list(request.tenantId, d.id, {
        ...pageParams(q, 'create_time'),
        keywords: q.keywords,
        id: q.id,
        name: q.name,
      });
      return ragflowResult({ docs: items.map((doc) => documentView(doc, d.chunk_method)), total });
    },
  );

  app.delete(
    '/api/v1/datasets/:dataset_id/documents',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Delete documents ({ids})' } },
    async (request) => {
      const d = await dataset(request);
      const list = await ownedDocuments(request, d, ids(request.body, 'ids'));
      await stopIndexing(deps, list);
      const deleted = await k.documents.delete(request.tenantId, d.id, list);
      await knowledgeOf(deps).index.removeDocuments(request.tenantId, deleted);
      return { code: 0 };
    },
  );

  const parseRoute = async (request: FastifyRequest) => {
    const d = await dataset(request);
    const list = await ownedDocuments(request, d, ids(request.body, 'document_ids'));
    if (list.length === 0) throw new AppError('BAD_REQUEST', '`document_ids` is required');
    await startIndexing(deps, request.tenantId, list);
    return { code: 0 };
  };
  const stopRoute = async (request: FastifyRequest) => {
    const d = await dataset(request);
    const list = await ownedDocuments(request, d, ids(request.body, 'document_ids'));
    await stopIndexing(deps, list);
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
