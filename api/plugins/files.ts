/**
 * Files in and out of runs, on RAGFlow's routes: `POST /api/v1/agents/{agent_id}/upload`
 * (multipart field `file`, one or more, files under any other field refused; answers RAGFlow's upload_info, or a list of them) stores a file
 * a completion then names in `files` (or a Begin file input); `GET
 * /api/v1/agents/attachments/{id}/download` serves a file a run made (DocGenerator,
 * ExcelProcessor, a Browser download) — or an upload — to its tenant only: any other key gets 404.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors';
import { fileMaxBytes } from '../../src/io/files/fileLimits';
import { extensionOf, fileText, mimeTypeOf } from '../../src/io/files/fileText';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { partBytes, uploadedFiles } from '../multipartUpload';

export interface FileRoutesOptions {
  /** Largest accepted file, bytes (default FILE_MAX_BYTES, 20 MB). */
  maxFileBytes?: number;
}

/** A file name safe in a Content-Disposition header (RFC 6266 with the UTF-8 form). */
function disposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export async function filesPlugin(app: FastifyInstance, deps: AppDeps, opts: FileRoutesOptions = {}): Promise<void> {
  const maxBytes = opts.maxFileBytes ?? fileMaxBytes();
  const files = deps.store.files;
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 16, fields: 16 } });

  app.post(
    '/api/v1/agents/:agent_id/upload',
    {
      config: { ragflow: true },
      schema: { tags: ['agents'], summary: "Upload files for an agent's runs (multipart `file`); name them in a completion's `files`" },
    },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      if (!(await deps.store.canvases.get(request.tenantId, agent_id)))
        throw new AppError('NO_PERMISSION', 'Make sure you have permission to access the agent.');
      if (!request.isMultipart()) throw new AppError('BAD_REQUEST', 'No file part!');
      const uploaded: Array<Record<string, unknown>> = [];
      for await (const part of uploadedFiles(request)) {
        const name = part.filename?.trim();
        if (!name) throw new AppError('BAD_REQUEST', 'No file selected!');
        const content = await partBytes(part);
        if (part.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', `${name} is larger than the upload limit (${maxBytes} bytes)`);
        const mimeType = mimeTypeOf(name, part.mimetype);
        let text: string | null = null;
        try {
          text = await fileText(name, mimeType, content);
        } catch (err) {
          throw new AppError('BAD_REQUEST', `${name}: ${err instanceof Error ? err.message : String(err)}`);
        }
        const meta = await files.put({ tenantId: request.tenantId, origin: 'upload', name, mimeType, content, text });
        uploaded.push({
          id: meta.id,
          name: meta.name,
          size: meta.size,
          extension: extensionOf(name),
          mime_type: meta.mime_type,
          created_by: request.tenantId,
          created_at: meta.create_time / 1000,
          preview_url: null,
        });
      }
      if (uploaded.length === 0) throw new AppError('BAD_REQUEST', 'No file part!');
      return ragflowJson(uploaded.length === 1 ? uploaded[0] : uploaded);
    },
  );

  const serve = (inline: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const { attachment_id } = request.params as { attachment_id: string };
    const meta = await files.meta(request.tenantId, attachment_id);
    const content = meta ? await files.content(request.tenantId, attachment_id) : null;
    if (!meta || !content) throw new AppError('NOT_FOUND', 'File not found');
    const asInline = inline || String((request.query as { disposition?: string }).disposition ?? '').toLowerCase() === 'inline';
    return reply
      .header('content-type', meta.mime_type)
      .header('content-length', String(content.byteLength))
      .header('content-disposition', disposition(asInline ? 'inline' : 'attachment', meta.name))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', 'sandbox')
      .send(Buffer.from(content));
  };
  const schema = { tags: ['agents'], summary: 'A file a run made (or an upload), to its tenant only' };
  app.get('/api/v1/agents/attachments/:attachment_id/download', { schema }, serve(false));
  app.get('/api/v1/agents/attachments/:attachment_id/preview', { schema }, serve(true));
}
