/**
 * Variable references, RAGFlow style: `{component_id@output.path}`, `{sys.name}`, `{env.name}`.
 *
 * Matching follows RAGFlow's `variable_ref_patt` (single or double braces, case-insensitive) and
 * additionally tolerates spaces inside the braces (`{{ sys.query }}`), which RAGFlow's pattern
 * misses. Nested paths walk objects, arrays (numeric segments) and JSON strings, as RAGFlow's
 * `get_variable_param_value` does. Pure: no I/O, safe inside the workflow sandbox.
 */

/** A parsed reference expression. */
export type VariableRef =
  { kind: 'component'; componentId: string; output: string; path: string[]; expr: string } | { kind: 'global'; name: string; expr: string };

// RAGFlow's pattern, except that an output name may contain ':' — early canvases read an
// Iteration's collected outputs by body component id (`{iteration:0@generate:1}`).
const REF_BODY = String.raw`[a-zA-Z0-9_:]+@[A-Za-z0-9_][A-Za-z0-9_.:-]*|sys\.[A-Za-z0-9_.]+|env\.[A-Za-z0-9_.]+`;
const REF_IN_TEXT = String.raw`\{[\{ ]*(${REF_BODY})[ \}]*\}`;

/** Returns a fresh global regex matching references inside a template string. */
export function refPattern(): RegExp {
  return new RegExp(REF_IN_TEXT, 'gis');
}

/**
 * Parses a reference expression with or without braces (`begin@x`, `{sys.query}`, ` {{a@b}} `).
 * Returns null when the text is not a reference.
 */
export function parseRef(text: string): VariableRef | null {
  const expr = text
    .trim()
    .replace(/^[{ ]+/, '')
    .replace(/[} ]+$/, '');
  if (!new RegExp(`^(?:${REF_BODY})$`, 'is').test(expr)) return null;
  const at = expr.indexOf('@');
  if (at < 0) return { kind: 'global', name: expr, expr };
  const componentId = expr.slice(0, at);
  const [output, ...path] = expr.slice(at + 1).split('.');
  return { kind: 'component', componentId, output: output ?? '', path, expr };
}

export interface RefMatch {
  ref: VariableRef;
  start: number;
  end: number;
}

/** All references in a template string, in order of appearance. */
export function findRefs(text: string): RefMatch[] {
  const out: RefMatch[] = [];
  for (const m of text.matchAll(refPattern())) {
    const ref = parseRef(m[1] ?? '');
    if (ref && m.index !== undefined) out.push({ ref, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** True when the whole string is exactly one reference (it then keeps the value's type). */
export function isWholeRef(text: string): boolean {
  const refs = findRefs(text);
  return refs.length === 1 && refs[0]!.start === 0 && refs[0]!.end === text.length;
}

/**
 * Walks `path` into `value`: object keys, numeric array indexes, and JSON strings parsed on the
 * way. Returns undefined when the path does not exist (RAGFlow returns None).
 */
export function getPath(value: unknown, path: readonly string[]): unknown {
  let cur: unknown = value;
  for (const key of path) {
    if (cur === null || cur === undefined) return undefined;
    if (typeof cur === 'string') {
      try {
        cur = JSON.parse(cur);
      } catch {
        return undefined;
      }
    }
    if (Array.isArray(cur)) {
      if (!/^-?\d+$/.test(key)) return undefined;
      let idx = Number(key);
      if (idx < 0) idx += cur.length;
      cur = cur[idx];
    } else if (typeof cur === 'object' && cur !== null) {
      cur = Object.prototype.hasOwnProperty.call(cur, key) ? (cur as Record<string, unknown>)[key] : undefined;
    } else {
      return undefined;
    }
  }
  return cur;
}

/** Returns a copy of `root` with `value` written at `path`, creating objects on the way. */
export function setPath(root: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const base: Record<string, unknown> = typeof root === 'object' && root !== null && !Array.isArray(root) ? { ...(root as Record<string, unknown>) } : {};
  const [head, ...rest] = path as [string, ...string[]];
  base[head] = setPath(base[head], rest, value);
  return base;
}

/**
 * Serializes like Python's `json.dumps(v, ensure_ascii=False)` (", " and ": " separators), so
 * prompts rendered here read the same as RAGFlow's.
 */
export function pyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(String(value));
}

/** How a referenced value appears inside text: strings as-is, nothing as "", the rest as JSON. */
export function stringifyValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return pyJson(value);
}

/** Resolves a reference to its current value. */
export type RefResolver = (ref: VariableRef) => unknown;

/** Replaces every reference in `text` with its rendered value. */
export function renderTemplate(text: string, resolve: RefResolver): string {
  let out = '';
  let last = 0;
  for (const m of findRefs(text)) {
    out += text.slice(last, m.start) + stringifyValue(resolve(m.ref));
    last = m.end;
  }
  return out + text.slice(last);
}

/**
 * Resolves a param value: a string that is exactly one reference yields the referenced value
 * with its type; a string containing references is rendered; anything else is returned as is.
 */
export function resolveParam(value: unknown, resolve: RefResolver): unknown {
  if (typeof value !== 'string') return value;
  if (isWholeRef(value)) return resolve(findRefs(value)[0]!.ref);
  if (findRefs(value).length > 0) return renderTemplate(value, resolve);
  return value;
}

/** Splits a template into literal text and references, in order (used for streaming Messages). */
export type TemplatePart = { kind: 'text'; text: string } | { kind: 'ref'; ref: VariableRef };

export function splitTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of findRefs(text)) {
    if (m.start > last) parts.push({ kind: 'text', text: text.slice(last, m.start) });
    parts.push({ kind: 'ref', ref: m.ref });
    last = m.end;
  }
  if (last < text.length) parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
}
