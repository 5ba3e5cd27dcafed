/**
 * `guardedFetch`: HTTP(S) for tools, through the network guard. Every hop (the first request and
 * each redirect, followed by hand) is checked and connected to its checked addresses; the body
 * is size-capped and decompressed with a cap too; failures map onto the error registry.
 */
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { AppError } from '../../errors';
import { assertUrlAllowed, pinnedLookup, type GuardContext } from './guard';
import { requestViaProxy, trustedCa, type Hop } from './proxy';
import { followRedirect, REDIRECT_STATUSES } from './redirects';

export interface GuardedRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface GuardedFetchOptions extends GuardContext {
  signal?: AbortSignal;
  /** For the whole exchange, redirects included. Default 60 s. */
  timeoutMs?: number;
  /** Redirects followed (each one checked); 0 returns the 3xx answer itself. Default 5. */
  maxRedirects?: number;
  /** Largest body accepted, after decompression. Default 10 MiB. */
  maxBytes?: number;
  /** An http(s) proxy URL; it passes the guard too. */
  proxy?: string | null;
  /** Extra trusted CA certificates (PEM), e.g. an internal CA; the system's stay trusted too. */
  ca?: string;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
}

function withoutService(err: AppError, service: string): string {
  return err.message.startsWith(`${service}: `) ? err.message.slice(service.length + 2) : err.message;
}

/** A request straight to the hop's checked address (the name only for TLS and Host); shared with the streaming fetch. */
export function directRequest(hop: Hop, method: string, headers: OutgoingHttpHeaders, signal: AbortSignal | undefined, ca: string | undefined): ClientRequest {
  const mod = hop.url.protocol === 'https:' ? https : http;
  return mod.request({
    hostname: hop.pinned.host,
    port: hop.pinned.port,
    path: `${hop.url.pathname}${hop.url.search}`,
    method,
    headers,
    lookup: pinnedLookup(hop.pinned),
    ...(signal ? { signal } : {}),
    agent: false,
    ...trustedCa(ca),
  });
}

function readBody(res: IncomingMessage, maxBytes: number, service: string, url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(new AppError('TOOL_BAD_REQUEST', `${service}: the answer of ${url} is larger than ${maxBytes} bytes`));
      } else chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

function decode(body: Buffer, encoding: string | undefined, maxBytes: number, service: string): Buffer {
  const enc = (encoding ?? '').trim().toLowerCase();
  if (!enc || enc === 'identity' || body.length === 0) return body;
  const opts = { maxOutputLength: maxBytes };
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return zlib.gunzipSync(body, { ...opts, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    if (enc === 'deflate') return zlib.inflateSync(body, opts);
    if (enc === 'br') return zlib.brotliDecompressSync(body, opts);
  } catch (err) {
    throw new AppError('TOOL_BAD_REQUEST', `${service}: could not decode a ${enc} answer: ${err instanceof Error ? err.message : String(err)}`);
  }
  return body;
}

async function exchange(
  target: Hop,
  proxy: Hop | null,
  init: { method: string; headers: OutgoingHttpHeaders; body?: string | Buffer },
  signal: AbortSignal,
  opts: GuardedFetchOptions,
) {
  const req = proxy
    ? await requestViaProxy(proxy, target, { method: init.method, headers: init.headers, signal, ca: opts.ca })
    : directRequest(target, init.method, init.headers, signal, opts.ca);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
    req.end(init.body);
  });
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const raw = await readBody(res, maxBytes, opts.service, target.url.href);
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    body: decode(raw, res.headers['content-encoding'] as string | undefined, maxBytes, opts.service),
  };
}

/**
 * Fetches `url` through the network guard. Throws TOOL_BAD_REQUEST when a hop is blocked (no
 * byte is sent to it), TOOL_UNAVAILABLE when the service cannot be reached or times out; a
 * cancellation through `signal` is rethrown as is.
 */
export async function guardedFetch(url: string, init: GuardedRequestInit, opts: GuardedFetchOptions): Promise<GuardedResponse> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const maxRedirects = opts.maxRedirects ?? 5;
  const proxy = opts.proxy ? await assertUrlAllowed(opts.proxy, { ...opts, service: `${opts.service} proxy` }) : null;

  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  let headers: Record<string, string> = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  let current = url;
  for (let hop = 0; ; hop++) {
    let target: Hop;
    try {
      target = await assertUrlAllowed(current, opts);
    } catch (err) {
      if (hop === 0 || !(err instanceof AppError)) throw err;
      throw new AppError(err.code, `${opts.service}: redirect to ${current} refused: ${withoutService(err, opts.service)}`, err.details);
    }
    const { host: _host, ...rest } = headers;
    const sent: OutgoingHttpHeaders = { ...rest, host: target.url.host, ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}) };
    if (target.url.username && !sent.authorization) {
      sent.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.url.username)}:${decodeURIComponent(target.url.password)}`).toString('base64')}`;
    }
    let res: Awaited<ReturnType<typeof exchange>>;
    try {
      res = await exchange(target, proxy, { method, headers: sent, body }, signal, opts);
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      if (err instanceof AppError) throw err;
      if (timeout.aborted) throw new AppError('TOOL_UNAVAILABLE', `${opts.service}: ${current} did not answer within ${Math.round(timeoutMs / 100) / 10} s`);
      throw new AppError('TOOL_UNAVAILABLE', `${opts.service}: could not reach ${current}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const location = res.headers.location;
    if (!REDIRECT_STATUSES.has(res.status) || !location || maxRedirects === 0) return { ...res, url: current };
    if (hop >= maxRedirects) throw new AppError('TOOL_BAD_REQUEST', `${opts.service}: more than ${maxRedirects} redirects (the last one to ${location})`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new AppError('TOOL_BAD_REQUEST', `${opts.service}: ${current} redirects to "${location}", which is not a URL`);
    }
    ({ method, body, headers } = followRedirect(res.status, { method, body, headers }, current, next));
    current = next.href;
  }
}
