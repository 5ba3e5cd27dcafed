/**
 * What main() returned, as CodeExec's outputs (RAGFlow's contract): `content` (the value as
 * text: strings as they are, objects and lists as indented JSON with sorted keys, null as ""),
 * `actual_type` (String, Number, Boolean, Object, Null, Array<T>), `raw_result`, and the
 * declared business outputs. One declared output receives the whole value (RAGFlow's current
 * mapping), or the dict entry of its name when only that fits its declared type; several
 * declared outputs are filled by key from a dict (RAGFlow's earlier mapping). Declared types are
 * checked; a mismatch is the node's error, as in RAGFlow.
 */

/** Outputs RAGFlow's CodeExec sets itself; never business outputs. */
const SYSTEM_OUTPUTS = new Set([
  'content',
  'actual_type',
  'attachments',
  '_ERROR',
  '_ARTIFACTS',
  '_ATTACHMENT_CONTENT',
  'raw_result',
  '_created_time',
  '_elapsed_time',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RAGFlow's `actual_type` of a JSON value. */
export function actualType(v: unknown): string {
  if (v === null || v === undefined) return 'Null';
  if (typeof v === 'boolean') return 'Boolean';
  if (typeof v === 'number') return 'Number';
  if (typeof v === 'string') return 'String';
  if (Array.isArray(v)) {
    const inner = new Set(v.map(actualType));
    return inner.size === 1 ? `Array<${[...inner][0]}>` : 'Array<Any>';
  }
  return isObject(v) ? 'Object' : 'Any';
}

function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortedDeep(v[k])]),
    );
  return v;
}

/** The value as text, as RAGFlow renders it (Python's str / json.dumps(indent=2, sort_keys)). */
export function canonicalContent(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'object') return JSON.stringify(sortedDeep(v), null, 2);
  return String(v);
}

const SIMPLE_TYPES: Record<string, string> = { string: 'String', number: 'Number', boolean: 'Boolean', object: 'Object', null: 'Null', any: 'Any' };

/** Why `v` does not have the declared `type` (RAGFlow's type names), or null when it does. */
export function typeMismatch(type: string, v: unknown, at = 'value'): string | null {
  const t = type.trim();
  const lower = t.toLowerCase();
  if (!t || lower === 'any') return null;
  const array = /^array<(.+)>$/i.exec(t);
  if (array) {
    if (!Array.isArray(v)) return `expected type Array<${array[1]}> at ${at}, got ${actualType(v)}`;
    for (const [i, item] of v.entries()) {
      const inner = typeMismatch(array[1]!, item, `${at}[${i}]`);
      if (inner) return inner;
    }
    return null;
  }
  const expected = SIMPLE_TYPES[lower];
  // Types RAGFlow does not know are not checked (it refuses them; a canvas should still run).
  if (!expected) return null;
  const got = actualType(v);
  return got === expected ? null : `expected type ${expected} at ${at}, got ${got}`;
}

export interface MappedOutputs {
  outputs: Record<string, unknown>;
  /** The contract was not met (the node's `_ERROR`). */
  error: string | null;
}

/** The node's outputs for main()'s return `value`, given the declared `outputs` param. */
export function mapOutputs(declared: Record<string, unknown>, value: unknown): MappedOutputs {
  const business = Object.keys(declared).filter((k) => !SYSTEM_OUTPUTS.has(k) && k.trim() !== '');
  const outputs: Record<string, unknown> = { content: canonicalContent(value), actual_type: actualType(value), raw_result: value, attachments: [] };
  const typeOf = (name: string) => {
    const meta = declared[name];
    return isObject(meta) && typeof meta.type === 'string' ? meta.type : '';
  };
  let error: string | null = null;
  const set = (name: string, v: unknown) => {
    outputs[name] = v;
    const problem = typeMismatch(typeOf(name), v);
    if (problem && !error) error = `CodeExec: output "${name}" does not match its declared type: ${problem}`;
  };
  if (business.length === 1) {
    const [name] = business as [string];
    // The whole value, unless it is a dict whose entry for the output fits where it does not.
    const byKey = isObject(value) && name in value && typeMismatch(typeOf(name), value) !== null && typeMismatch(typeOf(name), value[name]) === null;
    set(name, byKey ? (value as Record<string, unknown>)[name] : value);
  } else if (isObject(value) && business.some((k) => k in value)) {
    for (const k of business) set(k, value[k] ?? null);
  } else if (business.length > 1) {
    for (const k of business) outputs[k] = null;
    error = `CodeExec: main() returned ${actualType(value)}, but the outputs ${business.join(', ')} need a dict with those keys`;
  }
  return { outputs, error };
}
