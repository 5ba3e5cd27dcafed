/**
 * RAGFlow's document update (PATCH, and PUT) of document_api.py: name, chunk method, parser config,
 * metadata and enabled, with its refusals (counts and progress cannot change, nor a name's
 * extension). A new chunk method stops the document's indexing and drops its chunks.
 */
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps';
import { formatPyErrors, INVALID, type PyError } from '../pyValidate';
import { lenientBody } from '../ragflowBody';
import { deepMerge, parserConfigFor } from '../services/datasetDefaults';
import { documentView, knowledgeOf, stopIndexing } from '../services/knowledge';
import { rf } from './datasets';
import { FILE_NAME_LEN_LIMIT, suffixOf, updateDocumentModel } from './documentRequests';

export function documentUpdate(deps: AppDeps): (request: FastifyRequest) => Promise<unknown> {
  const k = deps.store.knowledge;
  return async (request) => {
    const { dataset_id, document_id } = request.params as { dataset_id: string; document_id: string };
    const req = lenientBody(request);
    if ('name' in req && req.name === null) throw rf(102, 'Field: <name> - Message: <Input should be a valid string> - Value: <None>');
    const d = await k.datasets.get(request.tenantId, dataset_id);
    if (!d) throw rf(102, "you don't own the dataset");
    const doc = await k.documents.get(request.tenantId, document_id);
    if (!doc || doc.dataset_id !== d.id) throw rf(102, "the dataset doesn't own the document");
    const errors: PyError[] = [];
    const v = updateDocumentModel(req, [], errors);
    if (v === INVALID || errors.length > 0) throw rf(102, formatPyErrors(errors));
    const u = v as Record<string, unknown>;
    if (u.chunk_count != null && u.chunk_count !== doc.chunk_count) throw rf(102, "can't change `chunk_count`");
    if (u.token_count != null && u.token_count !== doc.token_count) throw rf(102, "can't change `token_count`");
    if (u.progress != null && Math.abs((u.progress as number) - doc.progress) > 1e-9) throw rf(102, "can't change `progress`");
    if ('name' in req && req.name !== doc.name) {
      const name = req.name as string;
      if (Buffer.byteLength(name, 'utf8') > FILE_NAME_LEN_LIMIT) throw rf(101, `File name must be ${FILE_NAME_LEN_LIMIT} bytes or less.`);
      if (suffixOf(name) !== suffixOf(doc.name)) throw rf(101, "The extension of file can't be changed");
      const same = await k.documents.list(request.tenantId, d.id, { page: 1, pageSize: 0, orderby: 'create_time', desc: false, name });
      if (same.items.some((x) => x.name === name)) throw rf(102, 'Duplicated document name in the same dataset.');
    }
    if ('chunk_method' in req && typeof req.chunk_method === 'string' && req.chunk_method.length === 0)
      throw rf(102, '`chunk_method` (empty string) is not valid');
    if ('meta_fields' in req) await k.documents.update(request.tenantId, doc.id, { metaFields: (u.meta_fields as Record<string, unknown> | null) ?? {} });
    if ('name' in req && req.name !== doc.name) await k.documents.update(request.tenantId, doc.id, { name: req.name as string });
    if (u.parser_config) {
      const given = req.parser_config as Record<string, unknown>;
      await k.documents.update(request.tenantId, doc.id, { parserConfig: deepMerge(doc.parser_config, given) });
    }
    const method = u.chunk_method as string | null | undefined;
    if (method) {
      const current = doc.chunk_method ?? d.chunk_method;
      if (current.toLowerCase() !== method.toLowerCase()) {
        await stopIndexing(deps, [doc.id]);
        await k.documents.update(request.tenantId, doc.id, { chunkMethod: method });
        await k.documents.setProgress(doc.id, { run: 'UNSTART', progress: 0, msg: '', chunkCount: 0, tokenCount: 0 });
        await k.chunks.deleteForDocument(doc.id);
        await knowledgeOf(deps).index.removeDocuments(request.tenantId, [doc.id]);
      }
      if (!u.parser_config) await k.documents.update(request.tenantId, doc.id, { parserConfig: parserConfigFor(method, null) });
    }
    if ('enabled' in req && u.enabled != null) {
      const status = String(u.enabled);
      if (doc.status !== status) {
        await k.documents.update(request.tenantId, doc.id, { status });
        const chunks = await k.chunks.list(request.tenantId, doc.id, { page: 1, pageSize: 100000 });
        for (const c of chunks.items) await k.chunks.edit(request.tenantId, c.id, { available: status === '1' });
      }
    }
    const fresh = await k.documents.get(request.tenantId, doc.id);
    if (!fresh) throw rf(102, `Can not get document by id:${doc.id}`);
    return { code: 0, data: documentView(fresh, d.chunk_method) };
  };
}
