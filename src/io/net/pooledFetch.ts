/**
 * `pooledFetch`: a WHATWG-`fetch`-shaped function over node:http(s) with keep-alive connection
 * pools, for the model clients (the `openai` SDK takes a custom `fetch`). Their endpoints are the
 * operator's, not a canvas's, so this does not pass the network guard (tools use guardedFetch).
 *
 * Why not the platform's `fetch` (undici, WHATWG streams): a streamed model call through the
 * `openai` client took 1.70 ms wall and 2.06 ms of process CPU over it against 1.32 and 1.54 over
 * this (`npm run bench -- model`, quiet machine), on every model call of every node.
 *
 * What it does as the platform's does: keep-alive connections, gzip/deflate/br answers decoded as
 * they stream, redirects followed, an abort through `signal`, a connection idle for 300 s failing
 * the call (undici's headers and body timeouts). What it hands to the platform's `fetch` instead:
 * bodies other than text or bytes (forms, streams), `Request` inputs, other schemes, and a
 * request answered with a redirect (sent again there, which follows it).
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { REDIRECT_STATUSES } from './redirects';
import { RESERVED_REQUEST_HEADERS, toResponse } from './streamFetch';

/** The platform `fetch`'s shape (a `Request` input is handed to it). */
export type PooledFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** As undici: a connection silent this long (no answer, or a stalled body) fails the call. */
const IDLE_TIMEOUT_MS = 300_000;
/** Idle pooled connections close after this (a server's own `Keep-Alive: timeout` hint is shorter). */
const POOL_IDLE_MS = 4_000;

const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: POOL_IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: POOL_IDLE_MS }),
};

function bytesOf(body: RequestInit['body']): Buffer | undefined | null {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return null;
}

/** The request's headers, with the platform fetch's defaults where the caller set none. */
function headersOf(init: RequestInit | undefined, body: Buffer | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { accept: '*/*', 'accept-encoding': 'gzip, deflate, br' };
  // Host, length and hop-by-hop headers are the HTTP client's to set.
  new Headers(init?.headers).forEach((value, name) => {
    if (!RESERVED_REQUEST_HEADERS.has(name)) out[name] = value;
  });
  if (typeof init?.body === 'string' && out['content-type'] === undefined) out['content-type'] = 'text/plain;charset=UTF-8';
  if (body !== undefined) out['content-length'] = body.length;
  return out;
}

function decoder(encoding: string | undefined): Transform | null {
  // Sync flushes: each piece of a streamed answer is handed on as it arrives.
  const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(flush);
    case 'deflate':
      return zlib.createInflate(flush);
    case 'br':
      return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return null;
  }
}

/** What aborting reports: the signal's reason, as the platform's `fetch` does (an Error stands in for a bare value). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException(typeof reason === 'string' ? reason : 'This operation was aborted', 'AbortError');
}

interface Exchange {
  url: URL;
  method: string;
  headers: OutgoingHttpHeaders;
  body: Buffer | undefined;
  signal: AbortSignal | undefined;
  idleMs: number;
}

function send(x: Exchange, retried = false): Promise<IncomingMessage> {
  const { url, signal } = x;
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method: x.method, headers: x.headers, agent: agents[url.protocol as 'http:' | 'https:'] });
    let res: IncomingMessage | undefined;
    // An abort ends the exchange with the signal's reason, before or during the answer's body.
    const abort = () => {
      const reason = abortReason(signal!);
      req.destroy(reason);
      res?.destroy(reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    const forget = () => signal?.removeEventListener('abort', abort);
    req.setTimeout(x.idleMs, () => req.destroy(new Error(`no data from ${url.host} for ${x.idleMs / 1000} s`)));
    req.on('response', (answer: IncomingMessage) => {
      res = answer;
      answer.once('close', forget);
      resolve(answer);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (res) return; // the answer's body reports it
      forget();
      // A pooled connection the server closed as we reused it (its idle timeout fired): sent once
      // more on a new connection, Node's documented remedy. A model call may be repeated: the
      // activity's retry would repeat it anyway.
      if (req.reusedSocket && !retried && !signal?.aborted && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
        send(x, true).then(resolve, reject);
      } else reject(signal?.aborted ? abortReason(signal) : err);
    });
    req.end(x.body);
  });
}

/** The answer's bytes, decoded as they arrive when it came compressed. */
function bodyOf(res: IncomingMessage): Readable {
  const decode = decoder(res.headers['content-encoding']);
  // Errors of either side (a cut connection, corrupt data) reach the decoded stream's reader.
  return decode ? pipeline(res, decode, () => {}) : res;
}

export interface PooledFetchOptions {
  /** A connection silent this long fails the call. Default 300 s, as undici's headers and body timeouts. */
  idleTimeoutMs?: number;
}

/** A `fetch` over pooled node:http(s) connections (see the module comment). */
export function createPooledFetch(opts: PooledFetchOptions = {}): PooledFetch {
  const idleMs = opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  return async (input, init) => {
    const url = input instanceof URL ? input : typeof input === 'string' ? new URL(input) : null;
    const body = bytesOf(init?.body);
    if (!url || body === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return fetch(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw abortReason(signal);
    const res = await send({ url, method: (init?.method ?? 'GET').toUpperCase(), headers: headersOf(init, body), body, signal, idleMs });
    if (REDIRECT_STATUSES.has(res.statusCode ?? 0) && res.headers.location && init?.redirect !== 'manual') {
      res.destroy();
      return fetch(input, init);
    }
    return toResponse(res, bodyOf(res));
  };
}

/** The model clients' `fetch`. */
export const pooledFetch: PooledFetch = createPooledFetch();
