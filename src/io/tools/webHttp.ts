/**
 * HTTP for the tool clients (search engines, finance and utility APIs): GET with a query string,
 * POST with a form or a JSON body, the answer read as text. Every request goes through the network
 * guard (`src/io/net`): the host is checked and pinned, redirects are followed by hand and each hop
 * re-checked, the body is size-capped. A URL from the operator's settings (`<TOOL>_BASE_URL`) is
 * trusted as the operator's choice — its own host and port pass even when internal (a proxy, a
 * stand-in) — while a URL from a component's params or a model (`guard`) must pass
 * NETWORK_ALLOW_HOSTS like any other tenant-chosen destination. Failures map onto the error
 * registry: a refused or malformed request is not retried, an outage or a rate limit is.
 */
import { AppError } from '../../errors';
import { guardedFetch } from '../net';

/** Sent with every request: Wikimedia asks API clients to identify themselves. */
export const USER_AGENT = 'agent-canvas/0.1 (RAGFlow-compatible agent canvases; web search tool)';

export interface WebRequest {
  /** Query string parameters (GET) or form fields (POST without `json`). */
  params?: Record<string, string>;
  /** A JSON body (sent with POST); `params` then stay in the query string. */
  json?: unknown;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** The service's name in error messages. */
  service: string;
  timeoutMs?: number;
  /** Turns a non-2xx answer into an error of its own (e.g. a hint on how to fix it); else the default mapping. */
  explain?: (status: number, body: string, headers: Record<string, string | string[] | undefined>) => AppError | undefined;
  /**
   * Set when the URL comes from a component's params or a model (the tenant), not from the
   * operator's settings: its host must pass the network guard on its own (no private or metadata
   * addresses unless NETWORK_ALLOW_HOSTS allows them), whose settings are in `env`.
   */
  guard?: { env: Record<string, string | undefined> };
  /** The worker's settings (NETWORK_ALLOW_HOSTS for redirects of an operator's URL). */
  env?: Record<string, string | undefined>;
  /** Largest answer accepted (default 10 MiB). */
  maxBytes?: number;
  /** An http(s) proxy to go through (it passes the guard too). */
  proxy?: string;
  /**
   * Credentials the request carries in its URL or body (an API key in a query string): blanked
   * out of every error message, which could otherwise quote the URL or an echoing service.
   */
  secrets?: string[];
}

/** The error for an HTTP status: 401/403 refused credentials, other 4xx bad requests (408/429 aside), the rest worth retrying. */
export function statusError(service: string, status: number, body: string): AppError {
  const detail = `${service} answered HTTP ${status}: ${body.replace(/\s+/g, ' ').trim().slice(0, 300)}`;
  if (status === 401 || status === 403) return new AppError('TOOL_AUTH', detail, { status });
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return new AppError('TOOL_BAD_REQUEST', detail, { status });
  return new AppError('TOOL_UNAVAILABLE', detail, { status });
}

/** NETWORK_ALLOW_HOSTS plus the operator's own host and port (`host:port`, IPv6 in brackets). */
export function trusting(url: string, env: Record<string, string | undefined> | undefined, service: string): Record<string, string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AppError('TOOL_BAD_REQUEST', `${service}: "${url}" is not a valid URL`);
  }
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const own = `${u.hostname}:${port}`;
  const list = env?.NETWORK_ALLOW_HOSTS?.trim();
  return { ...env, NETWORK_ALLOW_HOSTS: list ? `${list},${own}` : own };
}

/** Makes the request and returns the status and body of a 2xx answer; throws an AppError otherwise. */
export async function fetchText(url: string, req: WebRequest): Promise<{ status: number; text: string; url: string }> {
  const method = req.method ?? (req.json !== undefined ? 'POST' : 'GET');
  const query = new URLSearchParams(req.params ?? {});
  const form = method === 'POST' && req.json === undefined;
  const target = !form && req.params ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url;
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...req.headers };
  let body: string | undefined;
  if (req.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(req.json);
  } else if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = query.toString();
  }
  try {
    const env = req.guard ? req.guard.env : trusting(url, req.env, req.service);
    const res = await guardedFetch(
      target,
      { method, headers, ...(body !== undefined ? { body } : {}) },
      {
        env,
        service: req.service,
        signal: req.signal,
        timeoutMs: req.timeoutMs ?? 30_000,
        ...(req.maxBytes ? { maxBytes: req.maxBytes } : {}),
        ...(req.proxy ? { proxy: req.proxy } : {}),
      },
    );
    const text = res.body.toString('utf8');
    if (res.status < 200 || res.status >= 300) throw req.explain?.(res.status, text, res.headers) ?? statusError(req.service, res.status, text);
    return { status: res.status, text, url: res.url };
  } catch (err) {
    throw withoutSecrets(err, req.secrets);
  }
}

/** The error with the given secrets (and their URL-encoded forms) blanked out of its message. */
export function withoutSecrets(err: unknown, secrets: readonly string[] | undefined): unknown {
  const hidden = (secrets ?? []).filter((s) => s.length >= 4).flatMap((s) => [s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)]);
  if (!(err instanceof AppError) || hidden.length === 0 || !hidden.some((s) => err.message.includes(s))) return err;
  const message = hidden.reduce((t, s) => t.split(s).join('[REDACTED]'), err.message);
  return new AppError(err.code, message, err.details);
}

/** `fetchText`, parsed as JSON (an answer that is not JSON is an outage: proxies and error pages). */
export async function fetchJson(url: string, req: WebRequest): Promise<unknown> {
  const { text } = await fetchText(url, { ...req, headers: { accept: 'application/json', ...req.headers } });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('TOOL_UNAVAILABLE', `${req.service} answered something that is not JSON: ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
}

/** A base URL without its trailing slashes. */
export function trimBase(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/** A positive integer param (RAGFlow's UI may send "10"), else `def`. */
export function positiveInt(v: unknown, def: number): number {
  const n = typeof v === 'string' ? Number(v.trim()) : typeof v === 'number' ? v : NaN;
  return Number.isInteger(n) && n > 0 ? n : def;
}
