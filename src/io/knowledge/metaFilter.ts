/**
 * Document metadata filters (a Retrieval's `meta_data_filter`, method `manual`): conditions
 * `{key, op, value}` combined with `logic` and/or, RAGFlow's operators. Numbers and dates compare
 * as such when both sides parse; everything else compares as text.
 */
import { orderOperator, textOperator } from '../../core/dsl/operators';

export interface MetaCondition {
  key: string;
  op: string;
  value?: unknown;
}

export interface MetaFilter {
  conditions: MetaCondition[];
  logic: 'and' | 'or';
}

const OP_ALIASES: Record<string, string> = { is: '=', 'not is': '≠', '>=': '≥', '<=': '≤', '!=': '≠' };

/** The manual filter of a `meta_data_filter` param, or null when there is none to apply. */
export function manualFilter(raw: unknown): MetaFilter | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as { method?: unknown; manual?: unknown; logic?: unknown };
  if (r.method !== 'manual' || !Array.isArray(r.manual) || r.manual.length === 0) return null;
  const conditions = r.manual
    .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && typeof (c as { key?: unknown }).key === 'string')
    .map((c) => ({ key: String(c.key), op: OP_ALIASES[String(c.op ?? '=')] ?? String(c.op ?? '='), value: c.value }));
  return conditions.length > 0 ? { conditions, logic: r.logic === 'or' ? 'or' : 'and' } : null;
}

function comparable(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || !v.trim()) return null;
  const n = Number(v);
  if (Number.isFinite(n)) return n;
  const d = Date.parse(v);
  return Number.isFinite(d) ? d : null;
}

function text(v: unknown): string {
  return v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
}

function holds(actual: unknown, op: string, expected: unknown): boolean {
  const values = Array.isArray(actual) ? actual : [actual];
  switch (op) {
    case 'empty':
      return values.every((v) => text(v) === '');
    case 'not empty':
      return values.some((v) => text(v) !== '');
    case 'in':
    case 'not in': {
      const set = (Array.isArray(expected) ? expected : text(expected).split(',')).map((x) => text(x).trim().toLowerCase());
      const found = values.some((v) => set.includes(text(v).toLowerCase()));
      return op === 'in' ? found : !found;
    }
  }
  return values.some((v) => {
    const a = text(v).toLowerCase();
    const e = text(expected).toLowerCase();
    const an = comparable(v);
    const en = comparable(expected);
    const numeric = an !== null && en !== null;
    return textOperator(op, a, e) ?? (numeric ? orderOperator(op, an, en) : orderOperator(op, a, e)) ?? false;
  });
}

/** Whether a document's metadata passes the filter. */
export function matchesMeta(meta: Readonly<Record<string, unknown>>, filter: MetaFilter): boolean {
  const results = filter.conditions.map((c) => holds(meta[c.key], c.op, c.value));
  return filter.logic === 'or' ? results.some(Boolean) : results.every(Boolean);
}
