/**
 * Request bodies of RAGFlow's dataset, document, chunk and retrieval routes, read the way RAGFlow
 * reads them. Those routes answer a wrong content type, malformed JSON or a non-object payload
 * with code 101 and fixed wording (`validate_and_parse_json_request`), while others read the body
 * leniently (`get_request_json`: no body is `{}`). So their scope keeps the raw text and each
 * route decides: `jsonObjectBody` (strict) or `lenientBody`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findBadText, jsonTextTooDeep, MAX_JSON_DEPTH } from '../src/core/dsl/jsonShape';
import { AppError } from '../src/errors';

const RAW = Symbol('raw body');

interface RawBody {
  [RAW]: { text: string; contentType: string };
}

function isRaw(b: unknown): b is RawBody {
  return typeof b === 'object' && b !== null && RAW in b;
}

/** Keeps JSON and any other non-multipart body as raw text in this scope (call before registering multipart). */
export function keepRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const keep = (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonTextTooDeep(text, MAX_JSON_DEPTH)) {
      const message = `nests arrays/objects deeper than the limit of ${MAX_JSON_DEPTH} levels`;
      done(new AppError('BAD_REQUEST', `The request body ${message}`, { problems: [{ path: '$.body', message }] }));
      return;
    }
    done(null, { [RAW]: { text, contentType: request.headers['content-type'] ?? '' } });
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, keep);
  app.addContentTypeParser('*', { parseAs: 'string' }, keep);
}

const failure = (message: string) => new AppError('BAD_REQUEST', message);

/** Python's type name of a JSON value. */
function pyTypeName(v: unknown): string {
  if (v === null) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return 'dict';
}

function checkText(value: unknown): void {
  const problems = findBadText(value, [], '$.body');
  if (problems.length > 0) throw new AppError('BAD_REQUEST', `Invalid request: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, { problems });
}

function contentTypeOf(request: FastifyRequest): string {
  return request.headers['content-type'] ?? '';
}

/**
 * RAGFlow's `validate_and_parse_json_request` front half: JSON content type, valid JSON, an
 * object (`null`, `[]` and other falsy values read as `{}`). Errors are code 101 with its wording.
 */
export function jsonObjectBody(request: FastifyRequest): Record<string, unknown> {
  const ct = contentTypeOf(request);
  const mime = ct.split(';')[0]!.trim().toLowerCase();
  if (mime !== 'application/json') throw failure(`Unsupported content type: Expected application/json, got ${ct || 'None'}`);
  const body = request.body;
  const text = isRaw(body) ? body[RAW].text : body === undefined ? '' : JSON.stringify(body);
  let parsed: unknown;
  try {
    if (text.trim() === '') throw new Error('empty');
    parsed = JSON.parse(text);
  } catch {
    throw failure('Malformed JSON syntax: Missing commas/brackets or invalid encoding');
  }
  if (!parsed) parsed = {};
  if (Array.isArray(parsed) && parsed.length === 0) parsed = {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw failure(`Invalid request payload: expected object, got ${pyTypeName(parsed)}`);
  checkText(parsed);
  return parsed as Record<string, unknown>;
}

/** RAGFlow's `get_request_json`: no body is `{}`; a JSON body must be an object; a form body gives its fields. */
export function lenientBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (!isRaw(body)) return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const { text, contentType } = body[RAW];
  if (text.trim() === '') return {};
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  if (mime === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw failure('Malformed JSON syntax: Missing commas/brackets or invalid encoding');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw failure('JSON payload must be an object.');
  checkText(parsed);
  return parsed as Record<string, unknown>;
}
