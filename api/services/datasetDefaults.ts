/**
 * RAGFlow's parser_config defaults per chunk method (api/utils/api_utils.py: get_parser_config,
 * deep_merge) and its renaming of duplicate names (`name(1)`, `a(1).txt`).
 */
import { ENTITY_TYPES, RAPTOR_PROMPT } from './parserConfigModel';
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
