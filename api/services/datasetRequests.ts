/**
 * RAGFlow's dataset request models (api/utils/validation_utils.py: CreateDatasetReq,
 * UpdateDatasetReq, DeleteReq, ListDatasetReq, ParserConfig), with the same checks and wording;
 * the parser_config defaults and name renaming are in datasetDefaults.ts.
 */
import { custom, INVALID, py, uuidField, uuidHex, type PyError, type Validator } from '../pyValidate';
import { MAX_PAGE } from '../paging';
import { f, opt, parserConfigField, strict } from './parserConfigModel';

export const DATASET_NAME_LIMIT = 128;
export const REST_API_MAX_PAGE_SIZE = 100;
export const REST_API_MAX_IDS = 100;

const avatar = py.pipe(py.nullable(py.str({ ...strict, max: 65535 })), (v, loc, errors) => {
  if (!v) return v;
  const s = v as string;
  if (!s.includes(',')) return custom(errors, loc, 'missing MIME prefix. Expected format: data:<mime>;base64,<data>', s);
  const prefix = s.split(',', 1)[0]!;
  if (!prefix.startsWith('data:')) return custom(errors, loc, "invalid MIME prefix format. Must start with 'data:'", s);
  const mime = prefix.slice(5).split(';')[0];
  if (!['image/jpeg', 'image/png'].includes(mime!)) return custom(errors, loc, "Unsupported MIME type. Allowed: ['image/jpeg', 'image/png']", s);
  return s;
});

const embeddingModel: Validator = (input, loc, errors) => {
  const v0 = typeof input === 'string' ? input.trim() : input;
  const v = py.nullable(py.str({ ...strict, max: 255 }))(v0, loc, errors);
  if (v === INVALID || v === null) return v;
  const s = v as string;
  if (/^[0-9a-fA-F]{32}$/.test(s)) return s;
  if (!s.includes('@')) return custom(errors, loc, 'embedding model identifier must follow <model_name>@<provider> format', s);
  const at = s.indexOf('@');
  const [name, provider] = [s.slice(0, at), s.slice(at + 1)];
  if (!name || !provider) return custom(errors, loc, 'both model_name and provider must be non-empty strings', s);
  if (!name.trim() || !provider.trim()) return custom(errors, loc, 'Model name and provider cannot be whitespace-only strings', s);
  return s;
};

export const CHUNK_METHODS = ['naive', 'book', 'email', 'laws', 'manual', 'one', 'paper', 'picture', 'presentation', 'qa', 'table', 'tag', 'resume'] as const;
const CHUNK_METHOD_MSG =
  "Input should be 'naive', 'book', 'email', 'laws', 'manual', 'one', 'paper', 'picture', 'presentation', 'qa', 'table', 'tag' or 'resume'";

const autoMetadataField = py.model('AutoMetadataField', {
  key: { v: py.str({ ...strict, strip: true, min: 1, max: 255 }), required: true },
  type: { v: py.literal(['string', 'list', 'time', 'number']), required: true },
  description: f(py.nullable(py.str({ ...strict, max: 65535 })), null),
  enum: f(py.nullable(py.list(py.str(strict))), null),
});
const autoMetadataConfig = py.model('AutoMetadataConfig', {
  metadata: f(py.list(autoMetadataField), () => []),
  built_in_metadata: f(py.list(autoMetadataField), () => []),
});

function pipelineId(input: unknown, loc: Array<string | number>, errors: PyError[], parseType: unknown): unknown {
  if (input === null || input === undefined) return null;
  if (parseType === 1) return null;
  const v = py.str({ ...strict })(input, loc, errors);
  if (v === INVALID) return INVALID;
  const s = v as string;
  if (s === '') return null;
  if (s.length !== 32) return custom(errors, loc, s.length < 32 ? 'String should have at least 32 characters' : 'String should have at most 32 characters', s);
  if (!/^[0-9a-fA-F]+$/.test(s)) return custom(errors, loc, 'pipeline_id must be hexadecimal', s);
  return s.toLowerCase();
}

export interface DatasetRequest {
  /** The fields the request set, validated, under RAGFlow's request names. */
  set: Record<string, unknown>;
}

/**
 * Validates a create (`update: false`) or update request like CreateDatasetReq/UpdateDatasetReq.
 * Returns the set fields (update) or every field with defaults (create).
 */
export function validateDatasetRequest(
  raw: Record<string, unknown>,
  mode: 'create' | 'update',
  datasetId?: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; errors: PyError[] } {
  const errors: PyError[] = [];
  const out: Record<string, unknown> = {};
  const has = (k: string) => k in raw && raw[k] !== undefined;
  const field = (k: string, v: Validator) => {
    if (!has(k)) return;
    const r = v(raw[k], [k], errors);
    if (r !== INVALID) out[k] = r;
  };
  // Declaration order of the pydantic model, so the errors come in its order.
  if (mode === 'create' && !has('name')) errors.push({ loc: ['name'], msg: 'Field required', input: raw });
  field('name', py.str({ ...strict, strip: true, min: 1, max: DATASET_NAME_LIMIT }));
  field('avatar', avatar);
  field('description', py.nullable(py.str({ ...strict, max: 65535 })));
  field('embedding_model', embeddingModel);
  field('permission', py.literal(['me', 'team']));
  field('parse_type', py.nullable(py.int({ ...strict, ge: 0, le: 64 })));
  if (has('pipeline_id')) {
    const r = pipelineId(raw.pipeline_id, ['pipeline_id'], errors, out.parse_type ?? 0);
    if (r !== INVALID) out.pipeline_id = r;
  }
  if (has('chunk_method')) {
    const v = raw.chunk_method;
    const before = errors.length;
    if (v !== null && typeof v !== 'string') errors.push({ loc: ['chunk_method'], msg: CHUNK_METHOD_MSG, input: v });
    else if (!v && !out.pipeline_id) errors.push({ loc: ['chunk_method'], msg: CHUNK_METHOD_MSG, input: v });
    else if (v && !(CHUNK_METHODS as readonly string[]).includes(v)) errors.push({ loc: ['chunk_method'], msg: CHUNK_METHOD_MSG, input: v });
    if (errors.length === before) out.chunk_method = v;
  }
  field('parser_config', parserConfigField(mode === 'update'));
  field('auto_metadata_config', py.nullable(autoMetadataConfig));
  field('ext', py.dict());
  if (mode === 'update') {
    if (!uuidHex(datasetId)) errors.push({ loc: ['dataset_id'], msg: 'Invalid UUID format', input: datasetId });
    field('pagerank', py.int({ ...strict, ge: 0, le: 100 }));
    field('language', py.nullable(py.str({ ...strict, max: 32 })));
    field('connectors', py.list(py.dict()));
  }
  const known = new Set([
    'name',
    'avatar',
    'description',
    'embedding_model',
    'permission',
    'parse_type',
    'pipeline_id',
    'chunk_method',
    'parser_config',
    'auto_metadata_config',
    'ext',
    ...(mode === 'update' ? ['pagerank', 'language', 'connectors'] : []),
  ]);
  for (const k of Object.keys(raw)) if (!known.has(k)) errors.push({ loc: [k], msg: 'Extra inputs are not permitted', input: raw[k] });
  if (errors.length > 0) return { ok: false, errors };
  // The model validator: chunk_method vs parse_type/pipeline_id.
  const chunkSet = has('chunk_method');
  if (!chunkSet) {
    const pt = out.parse_type ?? null;
    const pid = out.pipeline_id ?? null;
    if (!(pt === null && pid === null) && (pt === null || pid === null)) {
      const missing = [pt === null ? 'parse_type' : null, pid === null ? 'pipeline_id' : null].filter(Boolean).join(', ');
      return { ok: false, errors: [{ loc: [], msg: `parser_id omitted → required fields missing: ${missing}`, input: raw }] };
    }
  } else if (typeof out.chunk_method === 'string') {
    const invalid = [];
    if (![null, undefined, 1].includes(out.parse_type as number)) invalid.push('parse_type');
    if (out.pipeline_id != null) invalid.push('pipeline_id');
    if (invalid.length > 0)
      return { ok: false, errors: [{ loc: [], msg: `parser_id provided → disallowed fields present: ${invalid.join(', ')}`, input: raw }] };
  }
  if (mode === 'create') {
    out.avatar ??= null;
    out.description ??= null;
    out.embedding_model ??= null;
    out.permission ??= 'me';
    if (!chunkSet && out.pipeline_id == null) out.chunk_method = 'naive';
    out.parser_config ??= null;
  }
  return { ok: true, value: out };
}

export const deleteRequestModel = (uuidIds: boolean) =>
  py.model('DeleteReq', {
    ids: f(
      py.nullable(
        py.pipe(py.list(py.str(strict)), (list, loc, errors) => {
          const ids: string[] = [];
          for (const [i, x] of (list as string[]).entries()) {
            if (!uuidIds) {
              ids.push(x);
              continue;
            }
            const h = uuidHex(x);
            if (!h) return custom(errors, [...loc, i], 'Invalid UUID format', x);
            ids.push(h);
          }
          const dups = [...new Set(ids.filter((x, i) => ids.indexOf(x) !== i))];
          if (dups.length > 0) return custom(errors, loc, `Duplicate ids: '${dups.join(', ')}'`, list);
          return ids;
        }),
      ),
      null,
    ),
    delete_all: f(py.bool(strict), false),
  });

/** ListDatasetReq (query string: lax types). */
export const listDatasetModel = py.model('ListDatasetReq', {
  id: f((input, loc, errors) => uuidField(input, loc, errors), null),
  name: f(py.nullable(py.str()), null),
  page: f(py.int({ ge: 1, le: MAX_PAGE }), 1),
  page_size: f(
    py.pipe(py.int({ ge: 1 }), (v, loc, errors, input) =>
      (v as number) > REST_API_MAX_PAGE_SIZE ? custom(errors, loc, `Value error, page_size must be less than or equal to ${REST_API_MAX_PAGE_SIZE}`, input) : v,
    ),
    30,
  ),
  orderby: f(py.literal(['create_time', 'update_time']), 'create_time'),
  desc: f(py.bool(), true),
  ids: f(
    py.nullable(
      py.pipe(py.list(py.str(), { max: REST_API_MAX_IDS }), (list, loc, errors) => {
        const ids: string[] = [];
        for (const [i, x] of (list as string[]).entries()) {
          const h = uuidHex(x);
          if (!h) return custom(errors, [...loc, i], 'Invalid UUID format', x);
          ids.push(h);
        }
        const dups = [...new Set(ids.filter((x, i) => ids.indexOf(x) !== i))];
        if (dups.length > 0) return custom(errors, loc, `Duplicate ids: '${dups.join(', ')}'`, list);
        return ids;
      }),
    ),
    null,
  ),
  include_parsing_status: f(py.bool(), false),
  ext: f(py.dict(), () => ({})),
  type: opt(py.any()),
});
