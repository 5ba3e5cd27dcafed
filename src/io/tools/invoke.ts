/**
 * The Invoke (HTTP request) executor: RAGFlow's Invoke semantics — variables as the query string
 * (GET) or as a JSON / form body, JSON-looking strings sent as JSON in json mode, headers as a
 * JSON object with `{ref}` placeholders, optional proxy, `clean_html` — with every connection
 * through the network guard (see src/io/net). Like RAGFlow, any HTTP answer is the result,
 * whatever its status; failures to connect are retried, blocked targets are not.
 */
import { convert } from 'html-to-text';
import { AppError } from '../../errors';
import { HEADER_PLACEHOLDER, invokeParamsSchema, type InvokeParams } from '../../core/components/Invoke';
import { guardedFetch, type GuardedResponse, type Resolver } from '../net';
import type { ToolExecutor } from './executor';

const SERVICE = 'Invoke';
/** The download limit, and the largest `result` a node hands on: outputs travel in workflow history (2 MB payload limit). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_RESULT_CHARS = 1_000_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Adds `http://` to a bare `host/path`, as RAGFlow does; an explicit scheme is kept (and checked). */
export function withScheme(url: string): string {
  const u = url.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u) || /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(u)) return u;
  return `http://${u}`;
}

/** RAGFlow's proxy normalization: empty (or a bare scheme) means none; a scheme is added. */
export function normalizeProxy(proxy: string): string | null {
  const p = proxy.trim();
  if (!p.replace(/https?:?\/?\/?/i, '')) return null;
  return /^https?:\/\//i.test(p) ? p : `http://${p}`;
}

/** RAGFlow's JSON coercion: a string holding JSON is sent as that JSON value. */
function coerceJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Form and query values: lists repeat the key, null is left out, objects go as JSON. */
function formPairs(vars: Record<string, unknown>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const one = (k: string, v: unknown) => {
    if (v === null || v === undefined) return;
    pairs.push([k, typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)]);
  };
  for (const [k, v] of Object.entries(vars)) {
    if (Array.isArray(v)) v.forEach((x) => one(k, x));
    else one(k, v);
  }
  return pairs;
}

/** Headers from the stored params (JSON object, JSON text, or `Name: value` lines), placeholders filled. */
export function buildHeaders(raw: InvokeParams['headers'], vars: Record<string, string>): Record<string, string> {
  let given: Record<string, unknown> = {};
  if (typeof raw !== 'string') given = raw;
  else if (raw.trim()) {
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new AppError('TOOL_BAD_REQUEST', `${SERVICE}: headers must be a JSON object`);
      given = parsed as Record<string, unknown>;
    } catch (err) {
      if (err instanceof AppError) throw err;
      for (const line of raw.split(/\r?\n/)) {
        if (!line.trim()) continue;
        const at = line.indexOf(':');
        if (at <= 0)
          throw new AppError('TOOL_BAD_REQUEST', `${SERVICE}: headers must be a JSON object or "Name: value" lines (got "${line.trim().slice(0, 60)}")`);
        given[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      }
    }
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    const text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(HEADER_PLACEHOLDER, (m, ref: string) => vars[ref] ?? m);
    if (!HEADER_NAME.test(name)) throw new AppError('TOOL_BAD_REQUEST', `${SERVICE}: "${name}" is not a valid header name`);
    if (/[\r\n\0]/.test(text)) throw new AppError('TOOL_BAD_REQUEST', `${SERVICE}: the value of header ${name} contains a line break`);
    out[name.toLowerCase()] = text;
  }
  return out;
}

/** The request RAGFlow's Invoke sends: GET with the variables as query, else a JSON or form body. */
export function buildRequest(p: Pick<InvokeParams, 'method' | 'datatype'>, url: string, vars: Record<string, unknown>, headers: Record<string, string>) {
  const values = p.datatype === 'json' ? Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, coerceJson(v)])) : vars;
  if (p.method === 'get' || p.method === 'head') {
    let target = url;
    const pairs = formPairs(values);
    if (pairs.length > 0) {
      const u = new URL(url);
      for (const [k, v] of pairs) u.searchParams.append(k, v);
      target = u.href;
    }
    return { url: target, method: p.method.toUpperCase(), headers, body: undefined };
  }
  const json = p.datatype === 'json';
  const body = json ? JSON.stringify(values) : new URLSearchParams(formPairs(values)).toString();
  const type = json ? 'application/json' : 'application/x-www-form-urlencoded';
  return { url, method: p.method.toUpperCase(), headers: { 'content-type': type, ...headers }, body };
}

/** The body as text, in the charset the answer names (UTF-8 otherwise). */
export function responseText(res: Pick<GuardedResponse, 'headers' | 'body'>): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(String(res.headers['content-type'] ?? ''))?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(res.body);
  } catch {
    return new TextDecoder('utf-8').decode(res.body);
  }
}

/** HTML as readable text (RAGFlow's `clean_html`): no links, images or scripts. */
export function cleanHtml(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  }).trim();
}

/** The executor; `resolver` replaces DNS (tests). */
export function createInvokeExecutor(deps: { resolver?: Resolver } = {}): ToolExecutor {
  return async ({ params, args, env, signal }) => {
    const parsed = invokeParamsSchema.safeParse(params);
    if (!parsed.success)
      throw new AppError('COMPONENT_PARAMS', `${SERVICE}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const p = parsed.data;
    const rawUrl = typeof args.url === 'string' && args.url.trim() ? args.url : p.url;
    if (!rawUrl.trim()) throw new AppError('TOOL_BAD_REQUEST', `${SERVICE} needs an end point URL (url is empty)`);
    const vars = (typeof args.variables === 'object' && args.variables !== null ? args.variables : {}) as Record<string, unknown>;
    const headerVars = (typeof args.header_vars === 'object' && args.header_vars !== null ? args.header_vars : {}) as Record<string, string>;
    let req: ReturnType<typeof buildRequest>;
    try {
      req = buildRequest(p, withScheme(rawUrl), vars, buildHeaders(p.headers, headerVars));
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('TOOL_BAD_REQUEST', `${SERVICE}: "${rawUrl}" is not a valid URL`);
    }
    const res = await guardedFetch(req.url, req, {
      env,
      signal,
      service: SERVICE,
      resolver: deps.resolver,
      // A little under the activity's own budget (the same `timeout`), so this clearer error wins.
      timeoutMs: Math.max(1000, p.timeout * 1000 - 250),
      proxy: normalizeProxy(p.proxy),
      maxBytes: MAX_BODY_BYTES,
    });
    const text = responseText(res);
    const result = p.clean_html ? cleanHtml(text) : text;
    if (result.length > MAX_RESULT_CHARS) {
      throw new AppError(
        'TOOL_BAD_REQUEST',
        `${SERVICE}: the answer of ${res.url} is ${result.length} characters${p.clean_html ? ' as text' : ''}, more than the ${MAX_RESULT_CHARS} a node result may hold${p.clean_html ? '' : ' (clean_html may shrink a page)'}`,
      );
    }
    return { text: result, outputs: { result } };
  };
}

export const invokeTool: ToolExecutor = createInvokeExecutor();
