/**
 * RAGFlow's chunk routes of a document (api/apps/restful_apis/chunk_api.py): list, get, add,
 * update (PATCH, and PUT as older clients send), delete (by ids or `delete_all`), and switching
 * chunks on or off. A chunk added by hand is embedded with its dataset's model and indexed at
 * once; its id is derived from its text and document, as RAGFlow's is.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { embedderFor } from '../../src/io/knowledge/embedder';
import { countTokens } from '../../src/io/text/tokens';
import type { ChunkRecord, DatasetRecord, DocumentRecord } from '../../src/io/store/knowledgeTypes';
import type { AppDeps } from '../deps';
import { keepRawBodies, lenientBody } from '../ragflowBody';
import { documentView, knowledgeOf } from '../services/knowledge';
import { rf } from './datasets';
import { restPage, restPageSize } from './restPaging';

const ragflow = { ragflow: true } as const;

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || !String(v).trim();
}

export function chunkView(c: ChunkRecord): Record<string, unknown> {
  return {
    id: c.id,
    content: c.content,
    document_id: c.documentId,
    docnm_kwd: c.documentName,
    important_keywords: c.importantKeywords,
    tag_kwd: [],
    questions: c.questions,
    dataset_id: c.datasetId,
    image_id: '',
    doc_type_kwd: 'text',
    available: c.available,
    positions: [],
  };
}

/** RAGFlow joins these lists as text: an item that is not a string fails there (code 100, Python's TypeError). */
function notStrings(list: unknown[]): void {
  const i = list.findIndex((x) => typeof x !== 'string');
  if (i < 0) return;
  const t =
    list[i] === null
      ? 'NoneType'
      : typeof list[i] === 'number'
        ? Number.isInteger(list[i])
          ? 'int'
          : 'float'
        : Array.isArray(list[i])
          ? 'list'
          : typeof list[i] === 'boolean'
            ? 'bool'
            : 'dict';
  throw rf(100, `TypeError('sequence item ${i}: expected str instance, ${t} found')`);
}

const stringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');

export async function chunksPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const k = deps.store.knowledge;
  keepRawBodies(app);

  async function target(request: FastifyRequest): Promise<{ d: DatasetRecord; doc: DocumentRecord }> {
    const { dataset_id, document_id } = request.params as { dataset_id: string; document_id: string };
    const d = await k.datasets.get(request.tenantId, dataset_id);
    if (!d) throw rf(102, `You don't own the dataset ${dataset_id}.`);
    const doc = await k.documents.get(request.tenantId, document_id);
    if (!doc || doc.dataset_id !== d.id) throw rf(102, `you don't own the document ${document_id}`);
    return { d, doc };
  }

  async function embed(d: DatasetRecord, text: string): Promise<number[]> {
    const [e] = await embedderFor(d.embedding_model, knowledgeOf(deps).embedding).embed([text]);
    return e!;
  }

  async function reindex(doc: DocumentRecord, c: ChunkRecord, embedding: number[]): Promise<void> {
    await knowledgeOf(deps).index.indexDocument(doc, [{ id: c.id, content: c.content, section: c.section, position: c.position, tokens: c.tokens, embedding }]);
  }

  const base = '/api/v1/datasets/:dataset_id/documents/:document_id/chunks';

  app.get(
    base,
    { config: ragflow, schema: { tags: ['datasets'], summary: 'The chunks of a document (`keywords`, `id`, `chunk_ids`, `available`)' } },
    async (request) => {
      const { doc, d } = await target(request);
      const q = (request.query ?? {}) as Record<string, string | string[] | undefined>;
      const first = (name: string) => (Array.isArray(q[name]) ? q[name][0] : q[name]);
      const page = restPage(first('page'), 1);
      const pageSize = restPageSize(first('page_size'));
      const raw = q.chunk_ids === undefined ? [] : Array.isArray(q.chunk_ids) ? q.chunk_ids : [q.chunk_ids];
      const chunkIds = [
        ...new Set(
          raw
            .flatMap((x) => String(x).split(','))
            .map((x) => x.trim())
            .filter(Boolean),
        ),
      ];
      if (chunkIds.length > 100) throw rf(101, 'chunk_ids must contain at most 100 IDs');
      const fresh = (await k.documents.get(request.tenantId, doc.id)) ?? doc;
      const docView = documentView(fresh, d.chunk_method);
      const one = first('id');
      if (one) {
        const c = await k.chunks.get(request.tenantId, one);
        if (!c || c.documentId !== doc.id) throw rf(102, `Chunk not found: ${d.id}/${one}`);
        return { code: 0, data: { total: 1, chunks: [chunkView(c)], doc: docView } };
      }
      const available = first('available');
      const { items, total } = await k.chunks.list(request.tenantId, doc.id, {
        page,
        pageSize,
        keywords: first('keywords') || undefined,
        ...(chunkIds.length ? { ids: chunkIds } : {}),
        ...(available !== undefined ? { available: available === 'true' } : {}),
      });
      return { code: 0, data: { total, chunks: items.map(chunkView), doc: docView } };
    },
  );

  app.get(`${base}/:chunk_id`, { config: ragflow, schema: { tags: ['datasets'], summary: 'One chunk' } }, async (request) => {
    const { doc } = await target(request);
    const { chunk_id } = request.params as { chunk_id: string };
    const c = await k.chunks.get(request.tenantId, chunk_id);
    if (!c || c.documentId !== doc.id) return { code: 102, data: false, message: 'Chunk not found!' };
    return {
      code: 0,
      data: {
        id: c.id,
        content_with_weight: c.content,
        doc_id: c.documentId,
        docnm_kwd: c.documentName,
        kb_id: c.datasetId,
        important_kwd: c.importantKeywords,
        question_kwd: c.questions,
        available_int: c.available ? 1 : 0,
        doc_type_kwd: 'text',
        position_int: [],
      },
    };
  });

  app.post(base, { config: ragflow, schema: { tags: ['datasets'], summary: 'Add a chunk ({content, important_keywords?, questions?})' } }, async (request) => {
    const { d, doc } = await target(request);
    const req = lenientBody(request);
    if (isEmpty(req.content)) throw rf(102, '`content` is required');
    if ('important_keywords' in req) {
      if (!Array.isArray(req.important_keywords)) throw rf(102, '`important_keywords` is required to be a list');
      if (!stringList(req.important_keywords)) throw rf(102, '`important_keywords` must be a list of strings');
    }
    if ('questions' in req) {
      if (!Array.isArray(req.questions)) throw rf(102, '`questions` is required to be a list');
      if (!stringList(req.questions)) throw rf(102, '`questions` must be a list of strings');
    }
    if ('tag_kwd' in req) {
      if (!Array.isArray(req.tag_kwd)) throw rf(102, '`tag_kwd` is required to be a list');
      if (!stringList(req.tag_kwd)) throw rf(102, '`tag_kwd` must be a list of strings');
    }
    const content = String(req.content);
    const questions = ((req.questions as string[] | undefined) ?? []).map((q) => q.trim()).filter(Boolean);
    const keywords = (req.important_keywords as string[] | undefined) ?? [];
    const id = createHash('sha256').update(`${content}${doc.id}`).digest('hex').slice(0, 16);
    const embedding = await embed(d, questions.length ? questions.join('\n') : content);
    const tokens = countTokens(content);
    const position = (await k.chunks.list(request.tenantId, doc.id, { page: 1, pageSize: 1 })).total;
    await k.chunks.add(doc, [{ id, content, section: '', position, tokens, embedding }]);
    const c = await k.chunks.edit(request.tenantId, id, { content, importantKeywords: keywords, questions, available: true, tokens, embedding });
    // RAGFlow counts every add, also of a text the document already has (same id, same chunk).
    await k.documents.setProgress(doc.id, { chunkCount: doc.chunk_count + 1, tokenCount: doc.token_count + tokens });
    await reindex(doc, c!, embedding);
    const now = new Date();
    const chunk: Record<string, unknown> = {
      id,
      content,
      document_id: doc.id,
      important_keywords: keywords,
      questions,
      dataset_id: d.id,
      create_timestamp: now.getTime() / 1000,
      create_time: now.toISOString().slice(0, 19).replace('T', ' '),
      doc_type_kwd: 'text',
    };
    if ('tag_kwd' in req) chunk.tag_kwd = req.tag_kwd;
    return { code: 0, data: { chunk } };
  });

  const update = async (request: FastifyRequest) => {
    const { d, doc } = await target(request);
    const { chunk_id } = request.params as { chunk_id: string };
    const c = await k.chunks.get(request.tenantId, chunk_id);
    if (!c || c.documentId !== doc.id) throw rf(102, `Can't find this chunk ${chunk_id}`);
    const req = lenientBody(request);
    let content = c.content;
    if (req.content !== undefined && req.content !== null) {
      if (isEmpty(req.content)) throw rf(102, '`content` is required');
      content = String(req.content);
    }
    const patch: Parameters<typeof k.chunks.edit>[2] = { content };
    if ('important_keywords' in req) {
      if (!Array.isArray(req.important_keywords)) throw rf(102, '`important_keywords` should be a list');
      notStrings(req.important_keywords);
      patch.importantKeywords = (req.important_keywords as unknown[]).map(String);
    }
    if ('questions' in req) {
      if (!Array.isArray(req.questions)) throw rf(102, '`questions` should be a list');
      notStrings(req.questions);
      patch.questions = (req.questions as unknown[]).map((q) => String(q).trim()).filter(Boolean);
    }
    if ('available' in req) {
      const a = req.available;
      const n = typeof a === 'boolean' ? Number(a) : Number.parseInt(String(a), 10);
      if (!Number.isFinite(n)) throw rf(100, `invalid literal for int() with base 10: '${String(a)}'`);
      patch.available = n !== 0;
    }
    if ('positions' in req && !Array.isArray(req.positions)) throw rf(102, '`positions` should be a list');
    if ('tag_kwd' in req) {
      if (!Array.isArray(req.tag_kwd)) throw rf(102, '`tag_kwd` should be a list');
      if (!stringList(req.tag_kwd)) throw rf(102, '`tag_kwd` must be a list of strings');
    }
    const method = doc.chunk_method ?? d.chunk_method;
    if (method === 'qa') {
      const parts = content.split(/[\n\t]/).filter((t) => t.length > 1);
      if (parts.length !== 2) throw rf(102, 'Q&A must be separated by TAB/ENTER key.');
    }
    const questions = patch.questions ?? c.questions;
    patch.embedding = await embed(d, questions.length ? questions.join('\n') : content);
    patch.tokens = countTokens(content);
    const updated = await k.chunks.edit(request.tenantId, chunk_id, patch);
    if (updated) await reindex(doc, updated, patch.embedding);
    return { code: 0 };
  };
  app.patch(`${base}/:chunk_id`, { config: ragflow, schema: { tags: ['datasets'], summary: 'Update a chunk' } }, update);
  app.put(`${base}/:chunk_id`, { config: ragflow, schema: { tags: ['datasets'], summary: 'Update a chunk (as PATCH)' } }, update);

  app.delete(base, { config: ragflow, schema: { tags: ['datasets'], summary: 'Delete chunks ({chunk_ids}, or {delete_all: true})' } }, async (request) => {
    const { doc } = await target(request);
    const req = lenientBody(request);
    if (Object.keys(req).length === 0) return { code: 0 };
    const ids = req.chunk_ids;
    const index = knowledgeOf(deps).index;
    const afterDelete = async (deleted: string[]) => {
      if (deleted.length === 0) return;
      const fresh = await k.documents.get(request.tenantId, doc.id);
      await k.documents.setProgress(doc.id, { chunkCount: Math.max(0, (fresh?.chunk_count ?? deleted.length) - deleted.length) });
      await index.removeChunks?.(request.tenantId, deleted);
    };
    if (!Array.isArray(ids) || ids.length === 0) {
      if (req.delete_all === true) {
        const deleted = await k.chunks.deleteIds(request.tenantId, doc.id, null);
        await afterDelete(deleted);
        await k.documents.setProgress(doc.id, { chunkCount: 0, tokenCount: 0 });
        return { code: 0, message: `deleted ${deleted.length} chunks` };
      }
      return { code: 0 };
    }
    const list = ids.map(String);
    const unique = [...new Set(list)];
    const dups = unique.filter((x) => list.indexOf(x) !== list.lastIndexOf(x)).map((x) => `Duplicate chunk ids: ${x}`);
    const deleted = await k.chunks.deleteIds(request.tenantId, doc.id, unique);
    await afterDelete(deleted);
    if (deleted.length !== unique.length) throw rf(102, `rm_chunk deleted chunks ${deleted.length}, expect ${unique.length}`);
    if (dups.length > 0)
      return {
        code: 0,
        message: `Partially deleted ${deleted.length} chunks with ${dups.length} errors`,
        data: { success_count: deleted.length, errors: dups },
      };
    return { code: 0, message: `deleted ${deleted.length} chunks` };
  });

  app.patch(base, { config: ragflow, schema: { tags: ['datasets'], summary: 'Switch chunks on or off ({chunk_ids, available})' } }, async (request) => {
    const { dataset_id } = request.params as { dataset_id: string };
    const d = await k.datasets.get(request.tenantId, dataset_id);
    if (!d) throw rf(102, `You don't own the dataset ${dataset_id}.`);
    const req = lenientBody(request);
    if (!Array.isArray(req.chunk_ids) || req.chunk_ids.length === 0) throw rf(102, '`chunk_ids` is required.');
    if (!('available_int' in req) && !('available' in req)) throw rf(102, '`available_int` or `available` is required.');
    const available = 'available_int' in req ? Number(req.available_int) !== 0 : Boolean(req.available);
    const { document_id } = request.params as { document_id: string };
    const doc = await k.documents.get(request.tenantId, document_id);
    if (!doc || doc.dataset_id !== d.id) throw rf(102, 'document not found');
    for (const id of req.chunk_ids as unknown[]) {
      const c = await k.chunks.get(request.tenantId, String(id));
      if (!c || c.documentId !== doc.id) throw rf(102, 'Index updating failure');
      await k.chunks.edit(request.tenantId, c.id, { available });
    }
    return { code: 0, data: true };
  });
}
