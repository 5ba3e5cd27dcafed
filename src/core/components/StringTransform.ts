/**
 * StringTransform: RAGFlow's text component (agent/component/string_transform.py). `split` cuts
 * the text `split_ref` names at any of the `delimiters` (a list of text; RAGFlow reads a plain
 * string as its characters); `merge` fills the `script`'s references — a list joined with the
 * first delimiter, other values as JSON — and, when the script uses template syntax, renders it
 * in our Jinja-like sandbox (src/core/components/templateSandbox.ts) with each reference named
 * as RAGFlow names it (`{begin@city}` is `begin_city`). As in RAGFlow, a template that does not
 * compile fails the node, one that fails while rendering leaves the text as it is, and every
 * remaining occurrence of such a name is then replaced by its value. The output is `result`.
 * Inline and pure.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { parseRef, pyJson } from '../dsl/refs';
import { bareRef, executionParamsShape, pyTruthy, uniqueRefs } from './common';
import type { ComponentContext, ComponentDef, Outcome } from './definition';
import { pyStr, pyTypeName } from './pyValues';
import { looksLikeTemplate, renderSandboxed, TemplateError, TemplateLimitError, TemplateSyntaxError } from './templateSandbox';

const StringTransformParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    method: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 'split' : v),
      z.enum(['split', 'merge'], { error: (i) => `Support method ${String(i.input)} is not supported, it should be in ['split', 'merge']` }),
    ),
    script: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
    split_ref: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
    delimiters: z.preprocess(
      (v) => (v === null || v === undefined ? [','] : typeof v === 'string' ? [...v] : v),
      z.array(z.string()).min(1, 'delimiters does not support empty value.'),
    ),
  }),
);

export type StringTransformParams = z.infer<typeof StringTransformParams>;

/** RAGFlow's reference pattern (`variable_ref_patt`), which merge uses to find the script's references. */
const SCRIPT_REF = /\{* *\{([a-zA-Z0-9_:]+@[A-Za-z0-9_.-]+|sys\.[A-Za-z0-9_.]+|env\.[A-Za-z0-9_.]+)\} *\}*/gis;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Python's `re.split` of text at the delimiters, the delimiters themselves left out. */
export function splitText(text: string, delimiters: readonly string[]): string[] {
  const re = new RegExp(delimiters.map(escapeRegExp).join('|'), 'gs');
  const parts: string[] = [];
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    parts.push(text.slice(last, m.index));
    last = m.index + m[0].length;
    // An empty delimiter matches everywhere: step on, as Python's split does.
    if (m[0].length === 0) re.lastIndex++;
  }
  parts.push(text.slice(last));
  return parts;
}

/** RAGFlow's `_stringify_message_value` with a delimiter: a list joined, text as is, the rest as JSON. */
function mergeValue(v: unknown, delimiter: string): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v) && delimiter) return v.map(pyStr).join(delimiter);
  if (typeof v === 'string') return v;
  return pyJson(v);
}

/** The variables of a merge: each reference's name (`begin_city`) and text value, in script order. */
export function mergeVariables(script: string, resolve: (expr: string) => unknown, delimiter: string): { script: string; vars: Map<string, string> } {
  const vars = new Map<string, string>();
  let out = script;
  const exprs = [...new Set([...script.matchAll(SCRIPT_REF)].map((m) => m[1]!))];
  for (const expr of exprs) {
    const name = expr.replace(/[@:.]/g, '_');
    out = out.split(`{${expr}}`).join(name);
    vars.set(name, mergeValue(resolve(expr), delimiter) || '');
  }
  return { script: out, vars };
}

/** A merge, as RAGFlow computes it: the template rendered (when it is one), then every name replaced. */
export function mergeText(script: string, vars: ReadonlyMap<string, string>): string {
  let out = script;
  if (looksLikeTemplate(out)) {
    try {
      out = renderSandboxed(out, Object.fromEntries(vars));
    } catch (err) {
      // RAGFlow keeps the text when rendering fails (a template that does not compile fails it).
      if (!(err instanceof TemplateError)) throw err;
    }
  }
  for (const [name, value] of vars) out = out.split(name).join(value);
  return out;
}

function resolver(ctx: ComponentContext): (expr: string) => unknown {
  return (expr) => {
    const ref = parseRef(expr);
    return ref ? ctx.resolve(ref) : undefined;
  };
}

function scriptRefs(p: StringTransformParams) {
  return uniqueRefs([...p.script.matchAll(SCRIPT_REF)].map((m) => parseRef(m[1]!)).filter((r) => r !== null));
}

export const StringTransform: ComponentDef<StringTransformParams> = {
  name: 'StringTransform',
  params: StringTransformParams,
  role: 'plain',
  execution: 'inline',
  outputNames: () => ['result'],
  inputRefs: (p) => (p.method === 'split' ? bareRef([], p.split_ref).map((r) => r.ref) : scriptRefs(p)),
  paramRefs: (p) => bareRef(['split_ref'], p.split_ref),
  thoughts: (p) => `It's ${p.method}ing.`,
  run(p, ctx): Outcome {
    if (p.method === 'split') {
      const ref = parseRef(p.split_ref);
      if (!ref) return { kind: 'error', message: `Can't find variable: '${p.split_ref}'` };
      const raw = ctx.resolve(ref);
      const value = pyTruthy(raw) ? raw : '';
      const inputs = { [p.split_ref]: value };
      if (typeof value !== 'string') return { kind: 'error', message: `The input variable is not a string: <class '${pyTypeName(value)}'>`, inputs };
      return { kind: 'done', outputs: { result: splitText(value, p.delimiters) }, inputs };
    }
    const { script, vars } = mergeVariables(p.script, resolver(ctx), p.delimiters[0]!);
    try {
      return { kind: 'done', outputs: { result: mergeText(script, vars) }, inputs: Object.fromEntries(vars) };
    } catch (err) {
      if (err instanceof TemplateSyntaxError) return { kind: 'error', message: err.message };
      if (err instanceof TemplateLimitError) return { kind: 'error', message: `StringTransform: ${err.message}` };
      throw err;
    }
  },
};
