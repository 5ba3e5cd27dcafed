/**
 * The files of a multipart upload, as RAGFlow's upload routes read them: files come in the field
 * `file` (RAGFlow: `"file" not in request.files` → "No file part!"). Whatever the client sends
 * wrong is a 400 (RAGFlow code 101) naming what is wrong, never an internal error:
 * - a multipart Content-Type without a boundary (the parser cannot even start);
 * - a body that ends before its closing boundary, or is otherwise not multipart (the parser's
 *   error, reported as the body's fault);
 * - a file under another field name (refused naming that field: silently dropping it would
 *   answer "uploaded" for nothing);
 * - a file name PostgreSQL cannot store (a NUL, a lone surrogate).
 */
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { badTextReason } from '../src/core/dsl/jsonShape';
import { AppError } from '../src/errors';

/** RAGFlow's field for uploaded files. */
export const FILE_FIELD = 'file';

const bad = (message: string, path: string) => new AppError('BAD_REQUEST', message, { problems: [{ path, message }] });

/** `boundary=` of a multipart Content-Type (quoted or not); null when absent or empty. */
function boundaryOf(contentType: string | undefined): string | null {
  const m = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const value = m ? (m[1] ?? m[2] ?? '') : '';
  return value === '' ? null : value;
}

/** A failure of the multipart parser itself (not ours): a limit keeps its status, anything else is the body's fault. */
function asBodyError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return err;
  const why = err instanceof Error ? err.message : String(err);
  return bad(`The multipart body is malformed or incomplete (it ended before its closing boundary?): ${why}`, '$.body');
}

/** Reads a part's bytes, mapping a cut-off body to a 400. */
export async function partBytes(part: MultipartFile): Promise<Uint8Array> {
  try {
    return new Uint8Array(await part.toBuffer());
  } catch (err) {
    throw asBodyError(err);
  }
}

/**
 * The file parts of the request, checked as above; fields go to `onField`. Call only when
 * `request.isMultipart()`.
 */
export async function* uploadedFiles(request: FastifyRequest, onField: (field: MultipartValue) => void = () => {}): AsyncGenerator<MultipartFile> {
  if (!boundaryOf(request.headers['content-type']))
    throw bad('The multipart body has no boundary: send "Content-Type: multipart/form-data; boundary=<boundary>"', '$.headers.content-type');
  const parts = request.parts()[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<MultipartFile | MultipartValue>;
    try {
      next = await parts.next();
    } catch (err) {
      throw asBodyError(err);
    }
    if (next.done) return;
    const part = next.value;
    if (part.type === 'field') {
      onField(part);
      continue;
    }
    if (part.fieldname !== FILE_FIELD)
      throw bad(`No file part! Send files in the multipart field "${FILE_FIELD}", not "${part.fieldname}".`, `$.body.${part.fieldname}`);
    const reason = part.filename ? badTextReason(part.filename) : null;
    if (reason) throw bad(`The file name ${JSON.stringify(part.filename)} ${reason}`, `$.body.${FILE_FIELD}.filename`);
    yield part;
  }
}
