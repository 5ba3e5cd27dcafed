/**
 * ListOperations: RAGFlow's list component (agent/component/list_operations.py). Reads the list
 * `query` names and answers `result` (a list), `first` and `last`: `nth` (1-based, negative from
 * the end), `head` / `tail` (the first / last `n`; `topN` is `head`), `filter` (items whose
 * Python `str()` compares with `filter.value` by `=`, `≠`, `contains`, `start with`, `end with`),
 * `sort` (`sort_method` asc/desc; dicts by the `sort_by` keys, else by all their items) and
 * `drop_duplicates`. `strict` makes an `n` out of range an error instead of an empty result.
 * Inline and pure; errors are RAGFlow's.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { parseRef } from '../dsl/refs';
import { bareRef, executionParamsShape } from './common';
import type { ComponentDef, Outcome } from './definition';
import { pyCompare, pyHashable, pyKey, pyRepr, pyStr, pyTypeName } from './pyValues';

const OPERATIONS = ['nth', 'head', 'tail', 'filter', 'sort', 'drop_duplicates'] as const;
type Operation = (typeof OPERATIONS)[number];

/** RAGFlow's `_normalize_operation_name`: empty is `nth`, `topN` (any case) is `head`. */
function operationName(v: unknown): unknown {
  const op = v === null || v === undefined ? '' : String(v).trim();
  if (op.toLowerCase() === 'topn') return 'head';
  return op || 'nth';
}

const ListOperationsParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string().min(1, 'query does not support empty value.')),
    operations: z.preprocess(
      operationName,
      z.enum(OPERATIONS, { error: (i) => `Support operations ${String(i.input)} is not supported, it should be in ${pyRepr([...OPERATIONS])}` }),
    ),
    // RAGFlow's `_coerce_n`: int(n), else 0.
    n: z.preprocess((v) => {
      const n = typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? Number(v.trim()) : v;
      return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : 0;
    }, z.number()),
    // RAGFlow's `_is_strict`: a string counts when it reads "1", "true", "yes" or "on".
    strict: z.preprocess((v) => (typeof v === 'string' ? ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase()) : Boolean(v)), z.boolean()),
    sort_method: z.preprocess((v) => (v === null || v === undefined || v === '' ? 'asc' : v), z.string()),
    sort_by: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
    filter: z.preprocess(
      (v) => (v === null || v === undefined ? {} : v),
      z.looseObject({ operator: z.preprocess((v) => v ?? '=', z.string()), value: z.preprocess((v) => (v === undefined ? '' : v), z.unknown()) }),
    ),
  }),
);

export type ListOperationsParams = z.infer<typeof ListOperationsParams>;

/** The outcome of one operation: the list, or RAGFlow's error. */
export type ListResult = { ok: true; items: unknown[] } | { ok: false; error: string };

function strictRange(op: string, n: number): ListResult {
  return { ok: false, error: `${op} requires n to be within the valid range in strict mode, got ${n}.` };
}

/** RAGFlow's filter comparison of an item's `str()` with the filter value. */
export function filterMatches(item: string, operator: string, value: string): boolean {
  if (operator === '=') return item === value;
  if (operator === '≠') return item !== value;
  if (operator === 'contains') return item.includes(value);
  if (operator === 'start with') return item.startsWith(value);
  if (operator === 'end with') return item.endsWith(value);
  return false;
}

function sortItems(items: unknown[], p: ListOperationsParams): ListResult {
  if (items.length === 0) return { ok: true, items: [] };
  const reverse = p.sort_method === 'desc';
  const first = items[0];
  let key: (x: unknown) => unknown = (x) => x;
  if (typeof first === 'object' && first !== null && !Array.isArray(first)) {
    const sortBy = p.sort_by
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    // `x.get(k)`: a missing key (or an item that is not a dict, which Python would fail on) is None.
    const get = (x: unknown, k: string) => (typeof x === 'object' && x !== null && !Array.isArray(x) ? ((x as Record<string, unknown>)[k] ?? null) : null);
    key = sortBy.length > 0 ? (x) => sortBy.map((k) => get(x, k)) : pyHashable;
  }
  const keyed = items.map((item) => ({ item, key: key(item) }));
  try {
    // Stable, and `reverse` keeps equal items in their order, as Python's sorted does.
    keyed.sort((a, b) => (reverse ? pyCompare(b.key, a.key) : pyCompare(a.key, b.key)));
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  return { ok: true, items: keyed.map((k) => k.item) };
}

/** One ListOperations operation on a list, as RAGFlow computes it. */
export function listOperation(items: unknown[], p: ListOperationsParams): ListResult {
  const op: Operation = p.operations;
  const n = p.n;
  const len = items.length;
  switch (op) {
    case 'nth':
      if (n === 0) return p.strict ? strictRange('nth', n) : { ok: true, items: [] };
      if (n > 0) return n <= len ? { ok: true, items: [items[n - 1]] } : p.strict ? strictRange('nth', n) : { ok: true, items: [] };
      return -n <= len ? { ok: true, items: [items[len + n]] } : p.strict ? strictRange('nth', n) : { ok: true, items: [] };
    case 'head':
    case 'tail':
      if (p.strict && !(n >= 1 && n <= len)) return strictRange(op, n);
      if (n < 1) return { ok: true, items: [] };
      return { ok: true, items: op === 'head' ? items.slice(0, n) : items.slice(Math.max(0, len - n)) };
    case 'filter': {
      const operator = String(p.filter.operator);
      // Python compares `str(item)` with the value as given: a value that is not text equals nothing.
      const value = p.filter.value;
      if (typeof value !== 'string') {
        const method = {
          contains: "'in <string>' requires string as left operand",
          'start with': 'startswith first arg must be str or a tuple of str',
          'end with': 'endswith first arg must be str or a tuple of str',
        }[operator];
        if (method) return { ok: false, error: `${method}, not ${pyTypeName(value)}` };
        return { ok: true, items: operator === '≠' ? items : [] };
      }
      return { ok: true, items: items.filter((i) => filterMatches(i === null || i === undefined ? '' : pyStr(i), operator, value)) };
    }
    case 'sort':
      return sortItems(items, p);
    case 'drop_duplicates': {
      const seen = new Set<string>();
      return { ok: true, items: items.filter((i) => (seen.has(pyKey(i)) ? false : (seen.add(pyKey(i)), true))) };
    }
  }
}

export const ListOperations: ComponentDef<ListOperationsParams> = {
  name: 'ListOperations',
  params: ListOperationsParams,
  role: 'plain',
  execution: 'inline',
  outputNames: () => ['result', 'first', 'last'],
  inputRefs: (p) => bareRef([], p.query).map((r) => r.ref),
  paramRefs: (p) => bareRef(['query'], p.query),
  thoughts: () => 'ListOperation in progress',
  run(p, ctx): Outcome {
    const ref = parseRef(p.query);
    if (!ref) return { kind: 'error', message: `ListOperations: query '${p.query}' is not a variable reference` };
    const value = ctx.resolve(ref);
    const inputs = { [p.query]: value };
    if (!Array.isArray(value)) return { kind: 'error', message: 'The input of List Operations should be an array.', inputs };
    const r = listOperation(value, p);
    if (!r.ok) return { kind: 'error', message: r.error, inputs };
    return { kind: 'done', outputs: { result: r.items, first: r.items[0] ?? null, last: r.items.at(-1) ?? null }, inputs };
  },
};
