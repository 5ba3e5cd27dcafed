/**
 * RAGFlow's raw document routes (api/apps/restful_apis/document_api.py): a document downloaded by
 * its id alone, document images and sandbox artifacts. agent-canvas stores no page images and no
 * sandbox artifacts, so those two answer RAGFlow's "not found" (after its own checks of the name).
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps';
import { rf } from './datasets';
import { sendDocument } from './documentRequests';

const ragflow = { ragflow: true } as const;
const ARTIFACT_TYPES = ['.png', '.jpg', '.jpeg', '.svg', '.pdf', '.csv', '.json', '.html'];

/** Registers the routes on `app` (the documents plugin's context, sharing its hooks). */
export function rawDocumentRoutes(app: FastifyInstance, deps: AppDeps): void {
  const k = deps.store.knowledge;
  app.get(
    '/api/v1/documents/:document_id',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'Download a document by its id' } },
    async (request, reply) => {
      const { document_id } = request.params as { document_id: string };
      const doc = await k.documents.get(request.tenantId, document_id);
      if (!doc) throw rf(102, 'document not found');
      const content = await k.documents.content(doc.id);
      if (!content || content.byteLength === 0) return { code: 102, message: 'This file is empty.' };
      return sendDocument(reply, doc, content);
    },
  );
  app.get(
    '/api/v1/documents/images/:image_id',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'A page image of a document (none stored)' } },
    async () => {
      throw rf(102, 'Image not found.');
    },
  );
  app.get(
    '/api/v1/documents/artifact/:filename',
    { config: ragflow, schema: { tags: ['datasets'], summary: 'A sandbox artifact (none stored)' } },
    async (request) => {
      const { filename } = request.params as { filename: string };
      if (filename.includes('/') || filename.includes('\\')) throw rf(102, 'Invalid filename.');
      const dot = filename.lastIndexOf('.');
      const ext = dot > 0 ? filename.slice(dot).toLowerCase() : '';
      if (!ARTIFACT_TYPES.includes(ext)) throw rf(102, 'invalid file type');
      throw rf(102, 'Artifact not found.');
    },
  );
}
