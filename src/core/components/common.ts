/**
 * Building blocks shared by component definitions: lenient scalar schemas that accept what
 * RAGFlow's Python params accept, the execution params every component has, Python-like value
 * semantics, and the default reference scan.
 */
import { z } from 'zod';
import type { PathSegment } from '../dsl/jsonPath';
import { findRefs, parseRef, type VariableRef } from '../dsl/refs';
import type { ParamRef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

function numericString(v: unknown): unknown {
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return v;
}

/** A number, also given as a numeric string ("0.1"), as Python's `float()` would accept. */
export const num = (def: number) => z.preprocess((v) => (v === null || v === undefined ? def : numericString(v)), z.number());

/** A positive integer (a result count such as `top_n`), also given as a numeric string. */
export const positiveInt = (def: number) =>
  z.preprocess((v) => (v === null || v === undefined ? def : numericString(v)), z.number().int('must be a whole number').min(1, 'must be 1 or more'));

/** A non-negative integer, also given as a numeric string. */
export const nonNegInt = (def: number) =>
  z.preprocess((v) => (v === null || v === undefined ? def : numericString(v)), z.number().int('must be a whole number').min(0, 'must be 0 or more'));

/** A number in [0, 1] (RAGFlow's `check_decimal_float`). */
export const unitFloat = (def: number) =>
  z.preprocess((v) => (v === null || v === undefined ? def : numericString(v)), z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1'));

export const str = (def: string) => z.preprocess((v) => (v === null || v === undefined ? def : v), z.string());

export const bool = (def: boolean) => z.preprocess((v) => (v === null || v === undefined ? def : v), z.boolean());

/** A list of component ids, also accepted as one id or empty. */
export const idList = lazySchema(() =>
  z.preprocess((v) => (v === null || v === undefined || v === '' ? [] : typeof v === 'string' ? [v] : v), z.array(z.string())),
);

/** The params RAGFlow's ComponentParamBase gives every component, plus our per-component timeout. */
export const executionParamsShape = {
  max_retries: lazySchema(() => nonNegInt(0)),
  delay_after_error: lazySchema(() => z.preprocess((v) => (v === null || v === undefined ? 2 : numericString(v)), z.number().min(0, 'must be 0 or more'))),
  exception_method: lazySchema(() => z.preprocess((v) => (v === '' || v === undefined ? null : v), z.enum(['goto', 'comment']).nullable())),
  exception_goto: idList,
  exception_default_value: lazySchema(() =>
    z.preprocess((v) => (v === undefined || v === null || v === '' ? null : typeof v === 'string' ? v : JSON.stringify(v)), z.string().nullable()),
  ),
  timeout: lazySchema(() =>
    z.preprocess((v) => (v === undefined || v === null || v === '' ? null : numericString(v)), z.number().positive('must be more than 0').nullable()),
  ),
  message_history_window_size: lazySchema(() => nonNegInt(13)),
  description: lazySchema(() => str('')),
  outputs: lazySchema(() => z.preprocess((v) => (v === null || v === undefined ? {} : v), z.record(z.string(), z.unknown()))),
};

/** Python truthiness, which RAGFlow's conditions and aggregators rely on. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  if (typeof v === 'number') return !Number.isNaN(v);
  return true;
}

/** Python's `float(x)`: numbers and numeric strings; throws on anything else. */
export function pyFloat(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = v.trim().replace(/_/g, '').toLowerCase();
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(s)) return Number(s);
    if (/^[+-]?(inf|infinity)$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(s)) return NaN;
  }
  throw new Error(`could not convert ${JSON.stringify(v)} to float`);
}

function scan(value: unknown, path: PathSegment[], out: ParamRef[]): void {
  if (typeof value === 'string') {
    for (const m of findRefs(value)) out.push({ path, ref: m.ref });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => scan(v, [...path, i], out));
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) scan(v, [...path, k], out);
  }
}

/** Every braced reference anywhere in a params object. */
export function scanParamRefs(params: unknown): ParamRef[] {
  const out: ParamRef[] = [];
  scan(params, [], out);
  return out;
}

/** A bare reference param (`begin@x`, `sys.query`), as a ParamRef list (empty when not a ref). */
export function bareRef(path: PathSegment[], value: unknown): ParamRef[] {
  if (typeof value !== 'string' || value.trim() === '') return [];
  const ref = parseRef(value);
  return ref ? [{ path, ref }] : [];
}

/** References in a template string. */
export function templateRefs(text: string | undefined | null): VariableRef[] {
  return text ? findRefs(text).map((m) => m.ref) : [];
}

/** Unique by expression, keeping first occurrences. */
export function uniqueRefs(refs: VariableRef[]): VariableRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => (seen.has(r.expr) ? false : (seen.add(r.expr), true)));
}

/** Output names declared in `params.outputs`, RAGFlow style. */
export function declaredOutputs(outputs: Record<string, unknown>): string[] {
  return Object.keys(outputs);
}

/**
 * The outcome of a component this build can validate but not execute yet. It fails the node
 * with a clear message (and so takes the node's exception branch, if any).
 */
export function notRunnableYet(componentName: string): { kind: 'error'; message: string } {
  return { kind: 'error', message: `${componentName} cannot run in this build yet: the canvas validates, but the ${componentName} executor is not available` };
}

/**
 * A text param that may be a bare reference (`sys.query`, `iterationitem:0@result`, as RAGFlow's
 * older canvases write search queries) or a template: the referenced value as text, or the
 * rendered template.
 */
export function paramText(
  ctx: { canvas: { has(id: string): boolean }; resolve(ref: VariableRef): unknown; render(text: string): string },
  text: string,
): string {
  const t = text.trim();
  if (t && !t.includes('{')) {
    const ref = parseRef(t);
    if (ref && (ref.kind === 'global' || ctx.canvas.has(ref.componentId))) {
      const v = ctx.resolve(ref);
      return v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  return ctx.render(text);
}
