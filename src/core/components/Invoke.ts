/**
 * Invoke: RAGFlow's HTTP request component (InvokeParam). The node resolves its references here
 * (URL template, `variables`, `{ref}` placeholders in header values) and hands the values to the
 * `toolInvoke` activity, which builds the query string or body, sends the request through the
 * network guard (no private, loopback or metadata addresses unless NETWORK_ALLOW_HOSTS allows
 * them, re-checked on every redirect) and answers the response text as `result`.
 *
 * Header values stay in the activity: it reads them from the stored canvas, so a token typed into
 * `headers` is not copied into the node's inputs or events.
 */
import { z } from 'zod';
import { parseRef, type VariableRef } from '../dsl/refs';
import { bool, executionParamsShape, num, str, templateRefs, uniqueRefs } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

export const INVOKE_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'] as const;

const lower = (def: string) => (v: unknown) => (v == null || v === '' ? def : typeof v === 'string' ? v.trim().toLowerCase() : v);

const Variable = lazySchema(() =>
  z.looseObject({
    key: z.preprocess((v) => (v == null ? '' : v), z.string()),
    ref: z.preprocess((v) => (v == null ? '' : v), z.string()).optional(),
    value: z.unknown().optional(),
  }),
);

const InvokeParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    url: str(''),
    method: z.preprocess(lower('get'), z.enum(INVOKE_METHODS, { message: `method must be one of: ${INVOKE_METHODS.join(', ')}` })),
    variables: z.preprocess((v) => (v == null || v === '' ? [] : v), z.array(Variable)),
    /** A JSON object (as RAGFlow stores it: JSON text), or `Name: value` lines. */
    headers: z.preprocess((v) => (v == null ? '' : v), z.union([z.string(), z.record(z.string(), z.unknown())])),
    proxy: str(''),
    // RAGFlow's Invoke timeout (seconds, default 60) is also the activity's per-attempt budget here.
    timeout: num(60).refine((n) => n > 0, 'timeout must be more than 0'),
    clean_html: bool(false),
    datatype: z.preprocess(lower('json'), z.enum(['json', 'formdata'], { message: "datatype must be 'json' or 'formdata'" })),
  }),
);

export type InvokeParams = z.infer<typeof InvokeParams>;
export const invokeParamsSchema = InvokeParams;

/** `{name}` placeholders in header values (RAGFlow's `header_variable_ref_patt`). */
export const HEADER_PLACEHOLDER = /\{([a-zA-Z_][a-zA-Z0-9_.@-]*)\}/g;

function headerText(headers: InvokeParams['headers']): string {
  return typeof headers === 'string' ? headers : JSON.stringify(headers);
}

/** References a header value names: canvas variables only (other `{x}` text stays literal). */
function headerRefs(p: InvokeParams, ctx?: Pick<ComponentContext, 'canvas'>): VariableRef[] {
  const refs: VariableRef[] = [];
  for (const m of headerText(p.headers).matchAll(HEADER_PLACEHOLDER)) {
    const ref = parseRef(m[1]!);
    if (ref && (ref.kind === 'global' || !ctx || ctx.canvas.has(ref.componentId))) refs.push(ref);
  }
  return refs;
}

function variableRefs(p: InvokeParams): VariableRef[] {
  return p.variables.flatMap((v) => {
    const ref = v.ref?.trim() ? parseRef(v.ref) : null;
    return [...(ref ? [ref] : []), ...(typeof v.value === 'string' ? templateRefs(v.value) : [])];
  });
}

/** RAGFlow's `_resolve_arg_value`: the referenced value when set, else the (rendered) value, else "". */
function argValue(v: z.infer<typeof Variable>, ctx: ComponentContext): unknown {
  const ref = v.ref?.trim() ? parseRef(v.ref) : null;
  const refValue = ref ? ctx.resolve(ref) : undefined;
  if (refValue !== undefined && refValue !== null) return refValue;
  if (v.value !== undefined && v.value !== null) return typeof v.value === 'string' ? ctx.render(v.value) : v.value;
  return '';
}

export const Invoke: ComponentDef<InvokeParams> = {
  name: 'Invoke',
  params: InvokeParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['result'],
  inputRefs: (p) => uniqueRefs([...templateRefs(p.url), ...variableRefs(p), ...headerRefs(p)]),
  thoughts: () => 'Waiting for the server respond...',
  run: (p, ctx) => {
    const url = ctx.render(p.url.trim());
    if (!url) return { kind: 'error', message: 'Invoke needs an end point URL (url is empty)' };
    const args: Record<string, unknown> = {};
    for (const v of p.variables) if (v.key) args[v.key] = argValue(v, ctx);
    const headerVars: Record<string, string> = {};
    for (const ref of headerRefs(p, ctx)) {
      const value = ctx.resolve(ref);
      headerVars[ref.expr] = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    }
    const outcome = runToolNode('Invoke', ctx, { url, variables: args, header_vars: headerVars });
    if (outcome.kind !== 'call') return outcome;
    // The node shows what it sends (URL and variables), not header values.
    return { ...outcome, summary: `Invoke ${p.method.toUpperCase()} ${url}`.slice(0, 200), inputs: { url, method: p.method, ...args } };
  },
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
