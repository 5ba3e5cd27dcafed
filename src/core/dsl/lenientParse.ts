/**
 * Parsing that accepts the shapes real RAGFlow exports carry for "nothing": a field that is
 * `null`, `""`, `[]` or `{}` where the schema wants something else. RAGFlow's own loader copies
 * params onto a Python object as they are (`ComponentParamBase.update`), so an export tool or an
 * older editor may write `"variables": []`, `"outputs": []`, `"tools": {}` or `"globals": null`,
 * and RAGFlow loads it. Here such a value is read as absent (the schema's default applies) or as
 * the empty container the schema wants; a value that cannot be read either way keeps its original
 * error, at its own path. Knows no component: it works from the schema's issues alone.
 *
 * Pure and deterministic (also runs in the workflow sandbox). The input is never mutated: a
 * repaired copy is returned, which is what should be stored so every later reader (activities
 * re-parsing a tool's params from the stored canvas) sees the same values.
 */
import type { z } from 'zod';
import type { PathSegment } from './jsonPath';

export interface LenientIssue {
  /** Path in the input as given (legacy spellings mapped back by `toRaw`). */
  path: PathSegment[];
  message: string;
}

export type LenientResult<T> =
  | { success: true; data: T; /** The input, repaired (the same object when nothing was). */ value: unknown; repaired: boolean }
  | { success: false; issues: LenientIssue[]; value: unknown; repaired: boolean };

/** Maps a path the schema reports (after its own renames) to where the value sits in the input. */
export type PathMap = (path: PathSegment[]) => PathSegment[];

const identity: PathMap = (p) => p;

/** How many repairs one parse may try before giving up (each try is one parse). */
const MAX_TRIES = 64;

/** Issue codes that mean "wrong kind of value" (not a bound or a custom rule). */
const KIND_CODES = new Set(['invalid_type', 'invalid_union', 'invalid_value']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  return v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** The container kinds an issue asks for (`array`, `object`/`record`), unions included. */
function expectedKinds(issue: z.core.$ZodIssue): Set<string> {
  const kinds = new Set<string>();
  if (issue.code === 'invalid_type') kinds.add(issue.expected);
  if (issue.code === 'invalid_union') {
    for (const branch of issue.errors) for (const sub of branch) if (sub.code === 'invalid_type' && sub.path.length === 0) kinds.add(sub.expected);
  }
  return kinds;
}

function samePrefix(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
}

function keyOf(path: readonly PathSegment[]): string {
  return JSON.stringify(path);
}

/** The parent container of `path` in `root` and the last segment, or null when absent. */
function locate(root: unknown, path: readonly PathSegment[]): { parent: Record<string, unknown> | unknown[]; key: PathSegment } | null {
  if (path.length === 0) return null;
  let cur: unknown = root;
  for (const seg of path.slice(0, -1)) {
    if (typeof cur !== 'object' || cur === null || !Object.prototype.hasOwnProperty.call(cur, seg)) return null;
    cur = (cur as Record<PathSegment, unknown>)[seg];
  }
  if (typeof cur !== 'object' || cur === null) return null;
  const key = path[path.length - 1]!;
  if (!Object.prototype.hasOwnProperty.call(cur, key)) return null;
  return { parent: cur as Record<string, unknown> | unknown[], key };
}

/** What to try in place of an empty value, in order: absent (defaults apply), then the empty container wanted. */
function candidates(value: unknown, parentIsObject: boolean, kinds: Set<string>): unknown[] {
  const out: unknown[] = [];
  if (parentIsObject) out.push(undefined);
  if (kinds.has('array') && !Array.isArray(value)) out.push([]);
  if ((kinds.has('object') || kinds.has('record')) && !(isPlainObject(value) && Object.keys(value).length === 0)) out.push({});
  return out;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * Parses `input` with `schema`, reading empty values of the wrong kind as absent or as the empty
 * container wanted. `toRaw` maps the schema's issue paths to input paths (legacy spellings).
 */
export function parseLenient<T>(schema: z.ZodType<T>, input: unknown, toRaw: PathMap = identity): LenientResult<T> {
  let work = input;
  let owned = false;
  let changed = false;
  const settled = new Set<string>();
  let tries = 0;
  let result = schema.safeParse(work);
  while (!result.success && tries < MAX_TRIES) {
    const issues = result.error.issues;
    let target: { path: PathSegment[]; issue: z.core.$ZodIssue } | null = null;
    for (const issue of issues) {
      if (!KIND_CODES.has(issue.code)) continue;
      const path = toRaw(issue.path as PathSegment[]);
      if (settled.has(keyOf(path))) continue;
      const at = locate(work, path);
      if (at && isEmpty((at.parent as Record<PathSegment, unknown>)[at.key])) {
        target = { path, issue };
        break;
      }
    }
    if (!target) break;
    settled.add(keyOf(target.path));
    if (!owned) {
      work = clone(work);
      owned = true;
    }
    const at = locate(work, target.path)!;
    const parent = at.parent as Record<PathSegment, unknown>;
    const original = parent[at.key];
    let fixed = false;
    for (const candidate of candidates(original, !Array.isArray(at.parent), expectedKinds(target.issue))) {
      tries++;
      parent[at.key] = candidate;
      const attempt = schema.safeParse(work);
      const stillWrong = !attempt.success && attempt.error.issues.some((i) => samePrefix(toRaw(i.path as PathSegment[]), target.path));
      if (!stillWrong) {
        result = attempt;
        fixed = changed = true;
        break;
      }
    }
    if (!fixed) parent[at.key] = original;
  }
  // Keys set to undefined are dropped, as they would be when stored. `result` is the parse of
  // `work` as it stands: repairs that held are kept, the others were reverted.
  const value = changed ? clone(work) : input;
  if (result.success) return { success: true, data: result.data, value, repaired: changed };
  const issues = result.error.issues.map((i) => ({ path: toRaw(i.path as PathSegment[]), message: i.message }));
  return { success: false, issues, value, repaired: changed };
}

/**
 * The path map for a component's older param spellings (`legacy`: old name → current name): a
 * problem the schema reports at the current name is reported where the canvas wrote the value,
 * when the canvas uses the old spelling (the current one absent, empty, or a copy of it).
 */
export function legacyPathMap(raw: unknown, legacy: Readonly<Record<string, string>> | undefined): PathMap {
  if (!legacy || !isPlainObject(raw)) return identity;
  const oldOf = new Map<string, string>();
  for (const [old, current] of Object.entries(legacy)) {
    if (!Object.prototype.hasOwnProperty.call(raw, old)) continue;
    const v = raw[current];
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0) || v === raw[old]) oldOf.set(current, old);
  }
  if (oldOf.size === 0) return identity;
  return (path) => {
    const head = path[0];
    const old = typeof head === 'string' ? oldOf.get(head) : undefined;
    return old === undefined ? path : [old, ...path.slice(1)];
  };
}
