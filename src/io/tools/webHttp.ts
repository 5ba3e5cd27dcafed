/**
 * HTTP for the web-search clients (SearXNG, DuckDuckGo, Wikipedia): GET with a query string or
 * POST with a form, the body read as text. Failures map onto the error registry the way Tavily's
 * `postJson` maps them, so that a refused or malformed request is not retried and an outage is.
 */
import { AppError } from '../../errors';
import { guardedFetch } from '../net';

/** Sent with every request: Wikimedia asks API clients to identify themselves. */
export const USER_AGENT = 'agent-canvas/0.1 (RAGFlow-compatible agent canvases; web search tool)';

export interface WebRequest {
  /** Query string parameters (GET) or form fields (POST). */
  params?: Record<string, string>;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** The service's name in error messages. */
  service: string;
  timeoutMs?: number;
  /** Turns a non-2xx answer into an error of its own (e.g. a hint on how to fix it); else the default mapping. */
  explain?: (status: number, body: string) => AppError | undefined;
  /**
   * Set when the URL comes from a component's params (the tenant), not from the operator's
   * settings: the request goes through the network guard (no private or metadata addresses
   * unless NETWORK_ALLOW_HOSTS allows them; redirects checked too), whose settings are in `env`.
   */
  guard?: { env: Record<string, string | undefined> };
}

/** The error for an HTTP status: 401/403 refused credentials, other 4xx bad requests (429 aside), the rest worth retrying. */
export function statusError(service: string, status: number, body: string): AppError {
  const detail = `${service} answered HTTP ${status}: ${body.replace(/\s+/g, ' ').trim().slice(0, 300)}`;
  if (status === 401 || status === 403) return new AppError('TOOL_AUTH', detail, { status });
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return new AppError('TOOL_BAD_REQUEST', detail, { status });
  return new AppError('TOOL_UNAVAILABLE', detail, { status });
}

/** Makes the request and returns the status and body of a 2xx answer; throws an AppError otherwise. */
export async function fetchText(url: string, req: WebRequest): Promise<{ status: number; text: string }> {
  const signal = AbortSignal.any([req.signal, AbortSignal.timeout(req.timeoutMs ?? 30_000)]);
  const method = req.method ?? 'GET';
  const query = new URLSearchParams(req.params ?? {});
  const target = method === 'GET' && req.params ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url;
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...req.headers };
  if (method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded';
  if (req.guard) {
    const res = await guardedFetch(
      target,
      { method, headers, ...(method === 'POST' ? { body: query.toString() } : {}) },
      { env: req.guard.env, service: req.service, signal: req.signal, timeoutMs: req.timeoutMs ?? 30_000 },
    );
    const text = res.body.toString('utf8');
    if (res.status < 200 || res.status >= 300) throw req.explain?.(res.status, text) ?? statusError(req.service, res.status, text);
    return { status: res.status, text };
  }
  let res: Response;
  let text: string;
  try {
    res = await fetch(target, { method, headers, ...(method === 'POST' ? { body: query.toString() } : {}), signal });
    text = await res.text();
  } catch (err) {
    // A cancelled activity must surface as the cancellation, not as a tool failure.
    if (req.signal.aborted) throw err;
    if (!URL.canParse(url)) throw new AppError('TOOL_BAD_REQUEST', `${req.service}: "${url}" is not a valid URL`);
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new AppError(
      'TOOL_UNAVAILABLE',
      `Could not reach ${req.service} at ${new URL(url).origin}: ${err instanceof Error ? err.message : String(err)}${cause}`,
    );
  }
  if (!res.ok) throw req.explain?.(res.status, text) ?? statusError(req.service, res.status, text);
  return { status: res.status, text };
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
