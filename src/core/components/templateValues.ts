/**
 * What templates may do with values in the template sandbox (templateSandbox.ts): read own data
 * only, Jinja's truthiness and text, and the tests, filters and string/dict methods on offer.
 * Pure: runs in the workflow sandbox.
 */
import { pyStr } from './pyValues';
import { UNDEFINED } from './templateSyntax';

/** A template that fails while rendering (RAGFlow then keeps the text as it is). */
export class TemplateError extends Error {}

/** Jinja's tests, by name: each reads a value (a number test on a non-number fails at render). */
export const TESTS: Readonly<Record<string, (v: unknown) => boolean>> = {
  defined: (v) => v !== UNDEFINED,
  undefined: (v) => v === UNDEFINED,
  none: (v) => v === null,
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  float: (v) => typeof v === 'number' && !Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  true: (v) => v === true,
  false: (v) => v === false,
  mapping: (v) => isObj(v),
  sequence: (v) => Array.isArray(v) || typeof v === 'string' || isObj(v),
  iterable: (v) => Array.isArray(v) || typeof v === 'string' || isObj(v),
  lower: (v) => text(v) === text(v).toLowerCase(),
  upper: (v) => text(v) === text(v).toUpperCase(),
  odd: (v) => Math.abs(num(v) % 2) === 1,
  even: (v) => num(v) % 2 === 0,
};

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own data only: never a prototype, never a name Jinja's sandbox hides. */
export function member(o: unknown, k: unknown): unknown {
  if (typeof k === 'string' && (k.startsWith('_') || k === 'constructor' || k === 'prototype')) return UNDEFINED;
  if (o === UNDEFINED) throw new TemplateError(`cannot read ${text(k)} of an undefined value`);
  if (Array.isArray(o) || typeof o === 'string') {
    if (typeof k !== 'number' || !Number.isInteger(k)) return UNDEFINED;
    const i = k < 0 ? o.length + k : k;
    return i >= 0 && i < o.length ? o[i] : UNDEFINED;
  }
  if (isObj(o)) {
    const key = typeof k === 'number' ? String(k) : k;
    return typeof key === 'string' && Object.prototype.hasOwnProperty.call(o, key) ? o[key] : UNDEFINED;
  }
  return UNDEFINED;
}

export function truthy(v: unknown): boolean {
  if (v === UNDEFINED || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObj(v)) return Object.keys(v).length > 0;
  return true;
}

export function text(v: unknown): string {
  return v === UNDEFINED ? '' : pyStr(v);
}

export function items(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...v];
  if (isObj(v)) return Object.keys(v);
  if (v === UNDEFINED) return [];
  throw new TemplateError(`'${typeof v}' object is not iterable`);
}

export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return Number(v);
  throw new TemplateError(`unsupported operand: ${text(v)}`);
}

export function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a === UNDEFINED ? null : a) === JSON.stringify(b === UNDEFINED ? null : b);
}

/** A string method's receiver: a string, else the call fails as Jinja's would (no such attribute). */
function str(o: unknown): string {
  if (typeof o !== 'string') throw new TemplateError(`${o === UNDEFINED ? 'an undefined value' : typeof o} has no such method`);
  return o;
}

const upper = (o: unknown) => text(o).toUpperCase();
const lower = (o: unknown) => text(o).toLowerCase();
const titled = (o: unknown) => text(o).replace(/\w\S*/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase());
const replaced = (o: unknown, a: unknown[]) => text(o).split(text(a[0])).join(text(a[1]));

function dict(o: unknown): Record<string, unknown> {
  if (!isObj(o)) throw new TemplateError('not a dict: no such method');
  return o;
}

export const METHODS: Readonly<Record<string, (o: unknown, a: unknown[]) => unknown>> = {
  upper: (o) => upper(str(o)),
  lower: (o) => lower(str(o)),
  strip: (o) => str(o).trim(),
  title: (o) => titled(str(o)),
  split: (o, a) => (a[0] === undefined || a[0] === null ? str(o).trim().split(/\s+/).filter(Boolean) : str(o).split(text(a[0]))),
  replace: (o, a) => replaced(str(o), a),
  startswith: (o, a) => str(o).startsWith(text(a[0])),
  endswith: (o, a) => str(o).endsWith(text(a[0])),
  items: (o) => Object.entries(dict(o)),
  keys: (o) => Object.keys(dict(o)),
  values: (o) => Object.values(dict(o)),
  get: (o, a) => {
    const v = member(o, a[0]);
    return v === UNDEFINED ? (a[1] ?? null) : v;
  },
};

const defaultFilter = (v: unknown, a: unknown[]): unknown => (v === UNDEFINED || (a[1] === true && !truthy(v)) ? (a[0] ?? '') : v);

export const FILTERS: Readonly<Record<string, (v: unknown, a: unknown[]) => unknown>> = {
  upper,
  lower,
  title: titled,
  capitalize: (v) => {
    const s = text(v);
    return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  },
  trim: (v) => text(v).trim(),
  replace: replaced,
  length: (v) => items(v).length,
  count: (v) => items(v).length,
  default: defaultFilter,
  d: defaultFilter,
  join: (v, a) =>
    items(v)
      .map(text)
      .join(a[0] === undefined ? '' : text(a[0])),
  first: (v) => items(v)[0] ?? UNDEFINED,
  last: (v) => items(v).at(-1) ?? UNDEFINED,
  string: (v) => text(v),
  int: (v) => {
    const n = typeof v === 'string' ? parseInt(v, 10) : Number(v);
    return Number.isFinite(n) ? Math.trunc(n) : 0;
  },
  float: (v) => {
    const n = Number(v);
    return Number.isFinite(n) ? n : 0;
  },
  abs: (v) => Math.abs(num(v)),
  round: (v, a) => {
    const f = 10 ** Number(a[0] ?? 0);
    return Math.round(num(v) * f) / f;
  },
  list: (v) => [...items(v)],
  reverse: (v) => (typeof v === 'string' ? [...v].reverse().join('') : [...items(v)].reverse()),
  unique: (v) => [...new Set(items(v).map((x) => JSON.stringify(x)))].map((x) => JSON.parse(x) as unknown),
  tojson: (v) => JSON.stringify(v === UNDEFINED ? null : v),
  wordcount: (v) => text(v).split(/\s+/).filter(Boolean).length,
};
