/**
 * RAGFlow's dataset request models (api/utils/validation_utils.py: CreateDatasetReq,
 * UpdateDatasetReq, DeleteReq, ListDatasetReq, ParserConfig) and its parser_config defaults
 * (api/utils/api_utils.py: get_parser_config, deep_merge), with the same checks and wording.
 */
import { custom, INVALID, py, uuidField, uuidHex, type FieldSpec, type PyError, type Validator } from '../pyValidate';

export const DATASET_NAME_LIMIT = 128;
export const REST_API_MAX_PAGE_SIZE = 100;
export const REST_API_MAX_IDS = 100;

const strict = { strict: true } as const;
const f = (v: Validator, d?: unknown): FieldSpec => ({ v, default: d });
const opt = (v: Validator): FieldSpec => ({ v });

const RAPTOR_PROMPT =
  'Summarize the paragraphs below without inventing facts or changing numbers.\nOutput exactly two parts in the same language as the source:\n1. First line: a concise title only.\n2. Following lines: a concise summary of the content.\nDo not output labels, Markdown headings, bullet points, or any other commentary.\n\nParagraphs:\n{cluster_content}';

const raptorModel = py.model('RaptorConfig', {
  use_raptor: f(py.bool(strict), false),
  prompt: f(py.str({ ...strict, strip: true, min: 1 }), RAPTOR_PROMPT),
  max_token: f(py.int({ ...strict, ge: 512, le: 2048 }), 512),
  clustering_threshold: f(py.float({ ...strict, ge: 0, le: 1 }), 0.3),
  clustering_ratio: f(py.float({ ...strict, ge: 0, le: 1 }), 0.5),
  max_cluster: f(py.int({ ...strict, ge: 1, le: 1024 }), 64),
  random_seed: f(py.int({ ...strict, ge: 0 }), 0),
  scope: f(py.literal(['file', 'dataset']), 'file'),
  auto_disable_for_structured_data: f(py.bool(strict), true),
});

/** RaptorConfig's before-validator: legacy fields dropped, a small max_token raised to 512. */
const raptor: Validator = (input, loc, errors) => {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const v = { ...(input as Record<string, unknown>) };
    const ext = v.ext;
    delete v.ext;
    if (ext && typeof ext === 'object' && v.clustering_threshold == null && 'clustering_threshold' in (ext as object))
      v.clustering_threshold = (ext as Record<string, unknown>).clustering_threshold;
    for (const k of ['threshold', 'clustering_method', 'tree_builder']) delete v[k];
    if (typeof v.max_token === 'number' && v.max_token < 512) v.max_token = 512;
    return raptorModel(v, loc, errors);
  }
  return raptorModel(input, loc, errors);
};

const ENTITY_TYPES = ['organization', 'person', 'geo', 'event', 'category'];

const graphrag = py.model('GraphragConfig', {
  use_graphrag: f(py.bool(strict), false),
  entity_types: f(py.list(py.str(strict)), () => [...ENTITY_TYPES]),
  method: f(py.literal(['light', 'general', 'ner']), 'light'),
  community: f(py.bool(strict), false),
  resolution: f(py.bool(strict), false),
  batch_chunk_token_size: f(py.int({ ...strict, ge: 512, le: 8196 }), 4096),
  retry_attempts: f(py.int({ ...strict, ge: 1, le: 10 }), 2),
  retry_backoff_seconds: f(py.float({ ...strict, ge: 0, le: 600 }), 2.0),
  retry_backoff_max_seconds: f(py.float({ ...strict, ge: 0, le: 3600 }), 60.0),
  build_subgraph_timeout_per_chunk_seconds: f(py.int({ ...strict, ge: 1, le: 86400 }), 300),
  build_subgraph_min_timeout_seconds: f(py.int({ ...strict, ge: 1, le: 86400 }), 600),
  merge_timeout_seconds: f(py.int({ ...strict, ge: 0, le: 86400 }), 180),
  resolution_timeout_seconds: f(py.int({ ...strict, ge: 0, le: 86400 }), 1800),
  community_timeout_seconds: f(py.int({ ...strict, ge: 0, le: 86400 }), 1800),
  lock_acquire_timeout_seconds: f(py.int({ ...strict, ge: 0, le: 86400 }), 600),
});

const parentChild = py.model('ParentChildConfig', {
  use_parent_child: f(py.bool(strict), false),
  children_delimiter: f(py.str({ ...strict, min: 1 }), '\n'),
});

const groupIds: Validator = (input) => {
  if (input == null) return [];
  const raw = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(raw)) return [];
  const out: string[] = [];
  for (const g of raw) if (typeof g === 'string' && g.trim() && !out.includes(g.trim())) out.push(g.trim());
  return out;
};

const roleValues = ['indexing', 'metadata', 'both'] as const;
const tableRoles: Validator = (input, loc, errors) => {
  if (input === null) return null;
  if (!input || typeof input !== 'object' || Array.isArray(input)) return custom(errors, loc, 'Input should be a valid dictionary', input);
  const out: Record<string, string> = {};
  let bad = false;
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    const val = v === 'vectorize' ? 'indexing' : v;
    const r = py.literal(roleValues)(val, [...loc, k], errors);
    if (r === INVALID) bad = true;
    else out[k] = r as string;
  }
  return bad ? INVALID : out;
};

export const parserConfigModel = py.model('ParserConfig', {
  auto_keywords: f(py.int({ ...strict, ge: 0, le: 32 }), 0),
  auto_questions: f(py.int({ ...strict, ge: 0, le: 10 }), 0),
  chunk_token_num: f(py.int({ ...strict, ge: 1, le: 2048 }), 512),
  delimiter: f(py.str({ ...strict, min: 1 }), '\n'),
  graphrag: f(graphrag, () => graphrag({}, [], [])),
  html4excel: f(py.bool(strict), false),
  layout_recognize: f(py.str(strict), 'DeepDOC'),
  parent_child: f(parentChild, () => parentChild({}, [], [])),
  enable_children: f(py.bool(strict), false),
  children_delimiter: f(py.str(strict), ''),
  raptor: f(raptor, () => raptor({}, [], [])),
  tag_kb_ids: f(py.list(py.str(strict)), () => []),
  topn_tags: f(py.int({ ...strict, ge: 1, le: 10 }), 1),
  filename_embd_weight: f(py.nullable(py.float({ ...strict, ge: 0, le: 1 })), 0.1),
  task_page_size: f(py.nullable(py.int({ ...strict, ge: 1 })), null),
  pages: f(py.nullable(py.list(py.list(py.int(strict)))), null),
  compilation_template_group_id: f(groupIds, () => []),
  ext: f(py.dict(), () => ({})),
  table_column_mode: f(py.nullable(py.literal(['auto', 'manual'])), null),
  table_column_roles: f(tableRoles, null),
  table_column_names: f(py.nullable(py.list(py.str(strict))), null),
});

/** ParserConfig with only the fields the request set (pydantic's `exclude_unset`), nested models included. */
function setFieldsOnly(full: Record<string, unknown>, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(raw)) {
    if (!(k in full)) continue;
    const v = full[k];
    const r = raw[k];
    if (
      v &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      r &&
      typeof r === 'object' &&
      !Array.isArray(r) &&
      ['graphrag', 'raptor', 'parent_child'].includes(k)
    )
      out[k] = setFieldsOnly(v as Record<string, unknown>, r as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

const parserConfigField = (exclude: boolean): Validator => {
  return (input, loc, errors) => {
    if (input === null) return null;
    if (input && typeof input === 'object' && !Array.isArray(input) && Object.keys(input).length === 0) return null;
    const v = parserConfigModel(input, loc, errors);
    if (v === INVALID) return INVALID;
    const size = JSON.stringify(v).length;
    if (size > 65535) return custom(errors, loc, `Parser config exceeds size limit (max 65,535 characters). Current size: ${size}`, input);
    return exclude ? setFieldsOnly(v as Record<string, unknown>, input as Record<string, unknown>) : v;
  };
};

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
  page: f(py.int({ ge: 1 }), 1),
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

const clone = <T>(v: T): T => structuredClone(v);

/** RAGFlow's `deep_merge`: `custom` wins; nested objects merge. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged = clone(base);
  for (const [k, v] of Object.entries(over)) {
    const b = merged[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b))
      merged[k] = deepMerge(b as Record<string, unknown>, v as Record<string, unknown>);
    else merged[k] = clone(v);
  }
  return merged;
}

const NAIVE_DEFAULTS = {
  layout_recognize: 'DeepDOC',
  chunk_token_num: 512,
  delimiter: '\n',
  auto_keywords: 0,
  auto_questions: 0,
  html4excel: false,
  topn_tags: 3,
  raptor: {
    use_raptor: true,
    prompt: RAPTOR_PROMPT,
    max_token: 512,
    clustering_threshold: 0.3,
    clustering_ratio: 0.5,
    max_cluster: 64,
    random_seed: 0,
  },
  graphrag: {
    use_graphrag: true,
    entity_types: ENTITY_TYPES,
    method: 'light',
    batch_chunk_token_size: 4096,
    retry_attempts: 2,
    retry_backoff_seconds: 2.0,
    retry_backoff_max_seconds: 60.0,
    build_subgraph_timeout_per_chunk_seconds: 300,
    build_subgraph_min_timeout_seconds: 600,
    merge_timeout_seconds: 180,
    resolution_timeout_seconds: 1800,
    community_timeout_seconds: 1800,
    lock_acquire_timeout_seconds: 600,
  },
  parent_child: { use_parent_child: false, children_delimiter: '\n' },
};
const NO_RAPTOR_GRAPH = { raptor: { use_raptor: false }, graphrag: { use_graphrag: false } };

const METHOD_DEFAULTS: Record<string, Record<string, unknown> | null> = {
  naive: NAIVE_DEFAULTS,
  qa: NO_RAPTOR_GRAPH,
  tag: null,
  resume: null,
  manual: NO_RAPTOR_GRAPH,
  table: null,
  paper: NO_RAPTOR_GRAPH,
  book: NO_RAPTOR_GRAPH,
  laws: NO_RAPTOR_GRAPH,
  presentation: NO_RAPTOR_GRAPH,
  one: null,
  knowledge_graph: {
    chunk_token_num: 8192,
    delimiter: '\n',
    entity_types: ['organization', 'person', 'location', 'event', 'time'],
    ...NO_RAPTOR_GRAPH,
  },
  email: null,
  picture: null,
  audio: null,
};

/** RAGFlow's `get_parser_config`: the chunk method's defaults merged with what was given. */
export function parserConfigFor(chunkMethod: string | null | undefined, given: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const base = { table_context_size: 0, image_context_size: 0 };
  const defaults = METHOD_DEFAULTS[chunkMethod || 'naive'] ?? null;
  let merged: Record<string, unknown>;
  if (!given || Object.keys(given).length === 0) merged = deepMerge(base, defaults ?? {});
  else if (defaults === null) merged = deepMerge(base, given);
  else merged = deepMerge(deepMerge(base, defaults), given);
  const pc = merged.parent_child as Record<string, unknown> | undefined;
  if (pc && pc.use_parent_child) merged.children_delimiter = pc.children_delimiter ?? '\n';
  else if (pc && Object.keys(pc).length > 0) merged.children_delimiter = '';
  return merged;
}

/** Splits `name(3)` into `name` and 3 (RAGFlow's `_split_name_counter`). */
function splitCounter(stem: string): [string, number | null] {
  const m = /^(.*?)\((\d+)\)$/.exec(stem);
  return m ? [m[1]!, Number(m[2])] : [stem, null];
}

/** RAGFlow's `duplicate_name`: `a.txt` → `a(1).txt` → `a(2).txt` until `taken` says no. */
export async function uniqueName(name: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  let current = name;
  for (let i = 0; i < 1000; i++) {
    if (!(await taken(current))) return current;
    // Python's PurePath: the suffix is from the last dot of the last path part (not a leading dot).
    const base = current.slice(current.lastIndexOf('/') + 1);
    const dot = base.lastIndexOf('.');
    const hasSuffix = dot > 0 && dot < base.length - 1;
    const stem = hasSuffix ? current.slice(0, current.length - (base.length - dot)) : current;
    const suffix = hasSuffix ? base.slice(dot) : '';
    const [main, counter] = splitCounter(stem);
    current = `${main}(${counter ? counter + 1 : 1})${suffix}`;
  }
  throw new Error(`Failed to generate unique name within 1000 attempts. Original: ${name}`);
}
