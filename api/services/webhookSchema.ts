/**
 * The request side of RAGFlow's webhook trigger: the raw request read as RAGFlow reads it
 * (`{query, headers, body, content_type}`), then each part cut down to the fields the Begin's
 * `schema` declares, with strings cast to the declared type and every field type-checked.
 * Messages are RAGFlow's (`body missing required field: x`, `body.x type mismatch: expected
 * number, got str`), since the editor and callers show them as they are.
 */
import { parse as parseQueryString } from 'node:querystring';
import { AppError } from '../../src/errors';

export interface ParsedWebhookRequest {
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  content_type: string;
}

export interface RawWebhookRequest {
  query: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The unparsed body (the plugin's catch-all parser keeps it as bytes). */
  body: Buffer | null;
}

const bad = (message: string) => new AppError('BAD_REQUEST', message);

/** Repeated keys keep their first value, as Werkzeug's `args.items()` does. */
function firstValues(values: unknown): Record<string, unknown> {
  if (!values || typeof values !== 'object') return {};
  return Object.fromEntries(Object.entries(values as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

/** `x-token` → `X-Token`: header names as RAGFlow's (Werkzeug's) request shows them. */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads the request; refuses a Content-Type other than the configured one. */
export function parseWebhookRequest(raw: RawWebhookRequest, expected: string | string[] | undefined): ParsedWebhookRequest {
  const headers: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw.headers)) if (v !== undefined) headers[headerName(k)] = Array.isArray(v) ? v.join(', ') : v;
  const header = raw.headers['content-type'];
  const ctype = (Array.isArray(header) ? header[0] : (header ?? '')).split(';')[0]!.trim().toLowerCase();
  const allowed = (Array.isArray(expected) ? expected : expected ? [expected] : []).map((t) => t.trim().toLowerCase());
  // RAGFlow compares against an unset content_types too (and refuses everything); unset accepts any.
  if (ctype && allowed.length > 0 && !allowed.includes(ctype)) {
    throw bad(`Invalid Content-Type: expect '${Array.isArray(expected) ? expected.join(', ') : expected}', got '${ctype}'`);
  }
  if (ctype === 'multipart/form-data') throw bad('multipart/form-data webhooks are not supported yet');
  const text = raw.body && raw.body.length > 0 ? raw.body.toString('utf8') : '';
  let body: unknown = {};
  // As in RAGFlow, a body that does not parse is an empty body, not an error.
  if (ctype === 'application/x-www-form-urlencoded') body = firstValues(parseQueryString(text));
  else if (text) body = parseJson(text) ?? {};
  if (body === null) body = {};
  return { query: firstValues(raw.query), headers, body, content_type: ctype };
}

/** One part of the Begin's `schema`: `{properties: {field: {type}}, required: [...]}`. */
interface SectionSchema {
  properties: Record<string, { type?: unknown }>;
  required: string[];
}

function sectionSchema(value: unknown): SectionSchema {
  const v = (value && typeof value === 'object' ? value : {}) as { properties?: unknown; required?: unknown };
  const properties =
    v.properties && typeof v.properties === 'object' && !Array.isArray(v.properties) ? (v.properties as Record<string, { type?: unknown }>) : {};
  const required = Array.isArray(v.required) ? v.required.filter((r): r is string => typeof r === 'string') : [];
  return { properties, required };
}

export function defaultForType(t: string | undefined): unknown {
  if (t === 'file' || t?.startsWith('array')) return [];
  if (t === 'object') return {};
  if (t === 'boolean') return false;
  if (t === 'number') return 0;
  if (t === 'string') return '';
  return null;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Strings become the declared type when they can (RAGFlow's `auto_cast_value`); other values stay. */
export function autoCast(value: unknown, t: string | undefined): unknown {
  if (typeof value !== 'string' || !t) return value;
  const v = value.trim();
  if (t === 'boolean') {
    if (['true', '1'].includes(v.toLowerCase())) return true;
    if (['false', '0'].includes(v.toLowerCase())) return false;
    throw new Error(`Cannot convert '${value}' to boolean`);
  }
  if (t === 'number') {
    // Python's float() syntax, without inf/nan (JSON cannot carry them into the run).
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(v.replace(/_/g, ''))) return Number(v.replace(/_/g, ''));
    throw new Error(`Cannot convert '${value}' to number`);
  }
  if (t === 'object') {
    const parsed = parseJson(v);
    if (isPlainObject(parsed)) return parsed;
    throw new Error(`Cannot convert '${value}' to object`);
  }
  if (t.startsWith('array')) {
    const parsed = parseJson(v);
    if (Array.isArray(parsed)) return parsed;
    throw new Error(`Cannot convert '${value}' to array`);
  }
  return value;
}

export function matchesType(value: unknown, t: string | undefined): boolean {
  if (!t) return true;
  if (t === 'file') return Array.isArray(value);
  if (t === 'string') return typeof value === 'string';
  // Python's bool is an int, so RAGFlow takes true for a number.
  if (t === 'number') return typeof value === 'number' || typeof value === 'boolean';
  if (t === 'boolean') return typeof value === 'boolean';
  if (t === 'object') return isPlainObject(value);
  if (t.startsWith('array')) {
    if (!Array.isArray(value)) return false;
    const inner = /<(.+?)>/.exec(t)?.[1];
    return !inner || value.every((item) => matchesType(item, inner));
  }
  return true;
}

/** Python's name for a JSON value's type, as RAGFlow's messages print it. */
function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return Array.isArray(value) ? 'list' : 'dict';
}

/**
 * The fields `schema` declares, taken from `data`: a missing required field is refused, a missing
 * optional one gets its type's default. `caseInsensitive`: header names match in any case.
 */
export function extractBySchema(data: unknown, schema: unknown, name: string, caseInsensitive = false): Record<string, unknown> {
  const { properties, required } = sectionSchema(schema);
  const source = isPlainObject(data) ? data : {};
  const lookup = caseInsensitive ? new Map(Object.entries(source).map(([k, v]) => [k.toLowerCase(), v])) : new Map(Object.entries(source));
  const out: Record<string, unknown> = {};
  for (const [field, fieldSchema] of Object.entries(properties)) {
    const t = typeof fieldSchema?.type === 'string' ? fieldSchema.type : undefined;
    const key = caseInsensitive ? field.toLowerCase() : field;
    if (!lookup.has(key)) {
      if (required.includes(field)) throw bad(`${name} missing required field: ${field}`);
      out[field] = defaultForType(t);
      continue;
    }
    let value: unknown;
    try {
      value = autoCast(lookup.get(key), t);
    } catch (err) {
      throw bad(`${name}.${field} auto-cast failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!matchesType(value, t)) throw bad(`${name}.${field} type mismatch: expected ${t}, got ${pyTypeName(value)}`);
    out[field] = value;
  }
  return out;
}

/** The run's webhook input: the declared fields of each part, plus the whole request as `input`. */
export function cleanWebhookRequest(parsed: ParsedWebhookRequest, schema: unknown): Record<string, unknown> {
  const s = isPlainObject(schema) ? schema : {};
  return {
    query: extractBySchema(parsed.query, s.query, 'query'),
    headers: extractBySchema(parsed.headers, s.headers, 'headers', true),
    body: extractBySchema(parsed.body, s.body, 'body'),
    input: parsed,
  };
}
