/**
 * `guardedFetchFn`: a WHATWG-`fetch`-shaped function through the network guard, for libraries
 * that take a custom `fetch` (the MCP SDK's streamable-HTTP and SSE transports). Unlike
 * `guardedFetch` the answer streams (an SSE stream stays open for the session). Every hop — the
 * first request and each redirect — is checked and connected to its checked addresses; headers
 * the caller sets cannot override the Host header or hop-by-hop headers. A target that cannot be
 * reached is reported with one message, whatever the cause (refused, reset, timed out), so the
 * error does not tell ports apart.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { AppError } from '../../errors';
import { directRequest } from './fetch';
import { assertUrlAllowed, type GuardContext } from './guard';
import type { Hop } from './proxy';
import { followRedirect, REDIRECT_STATUSES } from './redirects';

export type FetchFn = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchFnOptions extends GuardContext {
  /** Redirects followed (each one checked). Default 5. */
  maxRedirects?: number;
  /** Extra trusted CA certificates (PEM); the system's stay trusted too. */
  ca?: string;
}

/**
 * Request headers nobody but the HTTP client may set: the Host header names the checked host,
 * and hop-by-hop headers (RFC 9110 §7.6.1) or a length could smuggle a second request.
 */
export const RESERVED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'proxy-authorization',
  'proxy-authenticate',
]);

const NULL_BODY = new Set([101, 204, 205, 304]);

function bodyBytes(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // Streams and forms are not used by the callers this serves; refusing beats sending them wrong.
  throw new TypeError('guarded fetch: only string and byte request bodies are supported');
}

function requestHeaders(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    if (!RESERVED_REQUEST_HEADERS.has(name)) out[name] = value;
  });
  return out;
}

function send(
  hop: Hop,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
  ca: string | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = directRequest(hop, method, headers, signal, ca);
    req.on('response', resolve);
    req.on('error', reject);
    req.end(body);
  });
}

/** The answer as a WHATWG Response; `body` stands in for the message's own bytes (e.g. decoded). */
export function toResponse(res: IncomingMessage, body: Readable = res): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // A header the WHATWG rules reject is dropped, as a browser would.
    }
  }
  const status = res.statusCode ?? 0;
  const stream = NULL_BODY.has(status) ? null : (Readable.toWeb(body) as ReadableStream<Uint8Array>);
  if (stream === null) res.resume();
  return new Response(stream, { status, statusText: res.statusMessage ?? '', headers });
}

/** A `fetch` whose every connection passes the network guard (see the module comment). */
export function guardedFetchFn(opts: GuardedFetchFnOptions): FetchFn {
  const maxRedirects = opts.maxRedirects ?? 5;
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    let method = (init?.method ?? 'GET').toUpperCase();
    let body = bodyBytes(init?.body);
    let headers = requestHeaders(init);
    let current = input instanceof URL ? input.href : String(input);
    for (let hop = 0; ; hop++) {
      let target: Hop;
      try {
        target = await assertUrlAllowed(current, opts);
      } catch (err) {
        if (hop === 0 || !(err instanceof AppError)) throw err;
        const why = err.message.startsWith(`${opts.service}: `) ? err.message.slice(opts.service.length + 2) : err.message;
        throw new AppError(err.code, `${opts.service}: redirect to ${current} refused: ${why}`, err.details);
      }
      const sent: OutgoingHttpHeaders = { ...headers, host: target.url.host, ...(body !== undefined ? { 'content-length': body.length } : {}) };
      let res: IncomingMessage;
      try {
        res = await send(target, method, sent, body, signal, opts.ca);
      } catch (err) {
        if (signal?.aborted) throw signal.reason ?? err;
        // One message for refused, reset, timed out and TLS failures: no port-scan oracle.
        throw new AppError('TOOL_UNAVAILABLE', `${opts.service}: could not reach ${target.url.host}`, { host: target.pinned.host });
      }
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 599) {
        res.destroy();
        throw new AppError('TOOL_UNAVAILABLE', `${opts.service}: ${target.url.host} answered with an invalid HTTP status`);
      }
      const location = res.headers.location;
      if (!REDIRECT_STATUSES.has(status) || !location || init?.redirect === 'manual') return toResponse(res);
      res.destroy();
      if (init?.redirect === 'error') throw new AppError('TOOL_BAD_REQUEST', `${opts.service}: ${current} answered with a redirect (HTTP ${status})`);
      if (hop >= maxRedirects) throw new AppError('TOOL_BAD_REQUEST', `${opts.service}: more than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new AppError('TOOL_BAD_REQUEST', `${opts.service}: ${current} redirects to something that is not a URL`);
      }
      ({ method, body, headers } = followRedirect(status, { method, body, headers }, current, next));
      current = next.href;
    }
  };
}
