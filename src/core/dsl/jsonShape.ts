/**
 * Shape checks that must run before anything recursive touches a JSON document: nesting depth
 * (recursive code such as JSON.stringify overflows the stack on a 10k-deep value) and strings
 * PostgreSQL refuses (NUL characters, lone UTF-16 surrogates). Iterative, pure: also used in the
 * workflow sandbox.
 */
import { formatJsonPath, type PathSegment } from './jsonPath';

/** The deepest nesting of arrays and objects accepted in request bodies and canvases. */
export const MAX_JSON_DEPTH = 64;

/** True when JSON text nests arrays/objects deeper than `max` (scanned without parsing). */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function isContainer(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

/** True when a parsed value nests arrays/objects deeper than `max`. */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (!isContainer(v)) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) if (isContainer(child)) stack.push({ v: child, depth: depth + 1 });
  }
  return false;
}

const ANY_SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL would refuse this text, or null when it is fine. */
export function badTextReason(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  // The cheap test first: most text holds no surrogate at all.
  if (ANY_SURROGATE.test(text) && LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate (invalid Unicode)';
  return null;
}

export interface BadText {
  path: string;
  message: string;
}

/**
 * Every string and key holding text PostgreSQL refuses, with its JSON path (at most `limit`).
 * `root` is how the path starts (`$.body`, `$`).
 */
export function findBadText(value: unknown, base: PathSegment[] = [], root = '$', limit = 20): BadText[] {
  const out: BadText[] = [];
  // Each entry points at its parent: a path is only built for a value that fails.
  interface Entry {
    v: unknown;
    parent: Entry | null;
    key: PathSegment | null;
  }
  const pathOf = (e: Entry | null): PathSegment[] => {
    const segs: PathSegment[] = [];
    for (let cur = e; cur && cur.key !== null; cur = cur.parent) segs.push(cur.key);
    return [...base, ...segs.reverse()];
  };
  const stack: Entry[] = [{ v: value, parent: null, key: null }];
  while (stack.length > 0 && out.length < limit) {
    const entry = stack.pop()!;
    const v = entry.v;
    if (typeof v === 'string') {
      const reason = badTextReason(v);
      if (reason) out.push({ path: formatJsonPath(pathOf(entry), root), message: reason });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        if (v[i] !== null && typeof v[i] !== 'number' && typeof v[i] !== 'boolean') stack.push({ v: v[i], parent: entry, key: i });
    } else if (isContainer(v) && !ArrayBuffer.isView(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        const reason = badTextReason(k);
        if (reason) out.push({ path: formatJsonPath(pathOf(entry), root), message: `has a key that ${reason}: ${JSON.stringify(k)}` });
        const child = (v as Record<string, unknown>)[k];
        if (child !== null && typeof child !== 'number' && typeof child !== 'boolean') stack.push({ v: child, parent: entry, key: k });
      }
    }
  }
  return out;
}
