/**
 * Python's view of JSON values, for the data components that mirror RAGFlow's Python: `str()`
 * and `repr()` as Python prints them, ordering as `sorted()` compares (with its TypeError on
 * values of different kinds), and equality as a `set` sees it (1, 1.0 and True are one key).
 * Pure: runs in the workflow sandbox.
 */

const PY_STR_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Python's `repr()` of a string: single quotes unless the text holds one and no double quote. */
function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === quote) out += `\\${ch}`;
    else if (PY_STR_ESCAPES[ch] !== undefined) out += PY_STR_ESCAPES[ch];
    else {
      const code = ch.codePointAt(0)!;
      out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
    }
  }
  return quote + out + quote;
}

function numberText(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  return String(n);
}

/** Python's `repr()` of a JSON value (`{'a': 1, 'b': [True, None]}`). */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'string') return reprString(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  }
  return String(v);
}

/** Python's `str()`: strings as they are, the rest as `repr()`. */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** Python's type name of a JSON value, as its errors print it. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  return 'dict';
}

/** Python's `sorted()` order of two values; throws Python's TypeError for values it cannot order. */
export function pyCompare(a: unknown, b: unknown): number {
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
  if (numeric(a) && numeric(b)) {
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') {
    // By code point, as Python compares strings.
    const x = [...a];
    const y = [...b];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
      if (d !== 0) return d < 0 ? -1 : 1;
    }
    return x.length - y.length < 0 ? -1 : x.length > y.length ? 1 : 0;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (pyEquals(a[i], b[i])) continue;
      return pyCompare(a[i], b[i]);
    }
    return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
  }
  throw new TypeError(`'<' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

/** Python's `==` on JSON values (1 == 1.0 == True). */
export function pyEquals(a: unknown, b: unknown): boolean {
  return pyKey(a) === pyKey(b);
}

/**
 * A text key equal for values Python's `set` holds as one (RAGFlow's `_hashable`: dicts by their
 * sorted items, lists as tuples, True as 1).
 */
export function pyKey(v: unknown): string {
  if (v === null || v === undefined) return 'N';
  if (typeof v === 'boolean') return `n${v ? 1 : 0}`;
  if (typeof v === 'number') return `n${numberText(v)}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (Array.isArray(v)) return `t[${v.map(pyKey).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>).sort(([x], [y]) => pyCompare(x, y));
  return `t[${entries.map(([k, x]) => `t[${pyKey(k)},${pyKey(x)}]`).join(',')}]`;
}

/**
 * RAGFlow's `_hashable` as a comparable value: a dict becomes the sorted list of its
 * `[key, value]` pairs, lists stay lists (tuples), the rest as is.
 */
export function pyHashable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pyHashable);
  if (typeof v === 'object' && v !== null) {
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => [k, pyHashable(x)])
      .sort((x, y) => pyCompare(x, y));
  }
  return v;
}
