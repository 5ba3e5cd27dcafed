/**
 * DataOperations: RAGFlow's object component (agent/component/data_operations.py). Gathers the
 * objects its `query` references name (a dict, or the dicts of a list; anything else is skipped)
 * and answers `result`: `literal_eval` (strings that look like Python literals become values,
 * recursively), `select_keys`, `filter_values` (every rule `{key, operator, value}` holds; the
 * value may hold references), `append_or_update` (`updates` `{key, value}`, the value a
 * template), `remove_keys`, `rename_keys` (`{old_key, new_key}`) and `combine` (one object whose
 * repeated keys collect their values in a list). Inline and pure; errors are RAGFlow's.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { parseRef } from '../dsl/refs';
import { bareRef, executionParamsShape } from './common';
import type { ComponentContext, ComponentDef, Outcome, ParamRef } from './definition';
import { filterMatches } from './ListOperations';
import { literalEval } from './pyLiteral';
import { pyRepr, pyStr, pyTypeName } from './pyValues';

const OPERATIONS = ['select_keys', 'literal_eval', 'combine', 'filter_values', 'append_or_update', 'remove_keys', 'rename_keys'] as const;

const list = () => z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(z.unknown()));

const DataOperationsParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    // RAGFlow takes one reference as a list of one.
    query: z.preprocess((v) => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.unknown())),
    operations: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 'literal_eval' : v),
      z.enum(OPERATIONS, { error: (i) => `Support operations ${String(i.input)} is not supported, it should be in ${pyRepr([...OPERATIONS])}` }),
    ),
    select_keys: list(),
    filter_values: list(),
    updates: list(),
    remove_keys: list(),
    rename_keys: list(),
  }),
);

export type DataOperationsParams = z.infer<typeof DataOperationsParams>;

type Obj = Record<string, unknown>;
export type DataResult = { ok: true; value: unknown } | { ok: false; error: string };

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What DataOperations needs of the canvas: RAGFlow's `get_value_with_variable` (references in text rendered). */
export interface DataEnv {
  render(text: string): string;
}

/** RAGFlow's `_recursive_eval`: strings that look like Python literals are read as them. */
export function recursiveEval(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(recursiveEval);
  if (isObj(data)) return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, recursiveEval(v)]));
  if (typeof data !== 'string') return data;
  const s = data.trim();
  const looksLiteral = /^[{[('"]/.test(s) || ['true', 'false', 'none'].includes(s.toLowerCase()) || /^\p{Nd}+$/u.test(s.replace(/\./g, ''));
  if (!looksLiteral) return data;
  const r = literalEval(data);
  return r.ok ? r.value : data;
}

function matchRule(obj: Obj, rule: unknown, env: DataEnv): boolean {
  const r = isObj(rule) ? rule : {};
  const key = r.key;
  const op = String(r.operator || 'equals').toLowerCase();
  const norm = (v: unknown) => (v === null || v === undefined ? '' : pyStr(v));
  let target = norm(r.value);
  target = env.render(target) || target;
  if (typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(obj, key)) return false;
  return filterMatches(norm(obj[key]), op, target);
}

function combine(objects: Obj[]): Obj {
  const result: Obj = {};
  for (const obj of objects) {
    for (const [key, value] of Object.entries(obj)) {
      if (!Object.prototype.hasOwnProperty.call(result, key)) result[key] = value;
      else if (Array.isArray(result[key]))
        result[key] = Array.isArray(value) ? [...(result[key] as unknown[]), ...value] : [...(result[key] as unknown[]), value];
      else result[key] = Array.isArray(value) ? [result[key], ...value] : [result[key], value];
    }
  }
  return result;
}

/** One DataOperations operation on the gathered objects, as RAGFlow computes it. */
export function dataOperation(objects: Obj[], p: DataOperationsParams, env: DataEnv): DataResult {
  switch (p.operations) {
    case 'select_keys': {
      const keys = new Set(p.select_keys.filter((k): k is string => typeof k === 'string'));
      return { ok: true, value: objects.map((o) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.has(k)))) };
    }
    case 'literal_eval':
      return { ok: true, value: recursiveEval(objects) };
    case 'combine':
      return { ok: true, value: combine(objects) };
    case 'filter_values':
      return { ok: true, value: objects.filter((o) => p.filter_values.every((rule) => matchRule(o, rule, env))) };
    case 'append_or_update': {
      const out: Obj[] = [];
      for (const obj of objects) {
        const next = { ...obj };
        for (const item of p.updates) {
          if (!isObj(item)) continue;
          const k = typeof item.key === 'string' ? item.key.trim() : '';
          if (!k) continue;
          // RAGFlow renders the value as text; anything else fails there.
          if (typeof item.value !== 'string') return { ok: false, error: `expected string or bytes-like object, got '${pyTypeName(item.value)}'` };
          next[k] = env.render(item.value) || item.value;
        }
        out.push(next);
      }
      return { ok: true, value: out };
    }
    case 'remove_keys':
      return {
        ok: true,
        value: objects.map((o) => {
          const next = { ...o };
          for (const k of p.remove_keys) if (typeof k === 'string') delete next[k];
          return next;
        }),
      };
    case 'rename_keys':
      return {
        ok: true,
        value: objects.map((o) => {
          const next = { ...o };
          for (const pair of p.rename_keys) {
            if (!isObj(pair)) continue;
            const from = typeof pair.old_key === 'string' ? pair.old_key.trim() : '';
            const to = typeof pair.new_key === 'string' ? pair.new_key.trim() : '';
            if (!from || !to || from === to || !Object.prototype.hasOwnProperty.call(next, from)) continue;
            const v = next[from];
            delete next[from];
            next[to] = v;
          }
          return next;
        }),
      };
  }
}

/** RAGFlow's gathering of inputs: a dict, or the dicts of a list; anything else is skipped. */
export function gatherObjects(values: unknown[]): Obj[] {
  const out: Obj[] = [];
  for (const v of values) {
    if (isObj(v)) out.push(v);
    else if (Array.isArray(v)) out.push(...v.filter(isObj));
  }
  return out;
}

function queryRefs(p: DataOperationsParams): ParamRef[] {
  return p.query.flatMap((q, i) => bareRef(['query', i], q));
}

function resolveQuery(p: DataOperationsParams, ctx: ComponentContext): { values: unknown[]; inputs: Record<string, unknown> } | { error: string } {
  const values: unknown[] = [];
  const inputs: Record<string, unknown> = {};
  for (const q of p.query) {
    const ref = typeof q === 'string' ? parseRef(q) : null;
    if (!ref) return { error: `Can't find variable: '${pyStr(q)}'` };
    const v = ctx.resolve(ref);
    inputs[ref.expr] = v ?? null;
    values.push(v);
  }
  return { values, inputs };
}

export const DataOperations: ComponentDef<DataOperationsParams> = {
  name: 'DataOperations',
  params: DataOperationsParams,
  role: 'plain',
  execution: 'inline',
  outputNames: () => ['result'],
  inputRefs: (p) => queryRefs(p).map((r) => r.ref),
  paramRefs: queryRefs,
  thoughts: () => 'DataOperation in progress',
  run(p, ctx): Outcome {
    const q = resolveQuery(p, ctx);
    if ('error' in q) return { kind: 'error', message: q.error };
    const r = dataOperation(gatherObjects(q.values), p, { render: (t) => ctx.render(t) });
    if (!r.ok) return { kind: 'error', message: r.error, inputs: q.inputs };
    return { kind: 'done', outputs: { result: r.value }, inputs: q.inputs };
  },
};
