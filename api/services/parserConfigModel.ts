/**
 * RAGFlow's ParserConfig model (api/utils/validation_utils.py: ParserConfig, RaptorConfig,
 * GraphragConfig, ParentChildConfig) with the same checks and wording.
 */
import { custom, INVALID, py, type FieldSpec, type Validator } from '../pyValidate';

export const strict = { strict: true } as const;
export const f = (v: Validator, d?: unknown): FieldSpec => ({ v, default: d });
export const opt = (v: Validator): FieldSpec => ({ v });

export const RAPTOR_PROMPT =
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

export const ENTITY_TYPES = ['organization', 'person', 'geo', 'event', 'category'];

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

export const parserConfigField = (exclude: boolean): Validator => {
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
