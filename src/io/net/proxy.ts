/**
 * Requests through an HTTP(S) proxy (RAGFlow Invoke's `proxy` param). The proxy itself passes
 * the guard and is connected to at its checked address. Plain-http targets are sent to the proxy
 * in absolute form (the proxy resolves them: the guard checked the name, the proxy is trusted to
 * resolve it the same way); https targets are tunnelled with CONNECT to the target's *checked
 * address*, with TLS verified against the target's name, so DNS rebinding cannot redirect them.
 */
import http, { type ClientRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { pinnedLookup, type PinnedHost } from './guard';
import { parseIp } from './ip';

export interface Hop {
  url: URL;
  pinned: PinnedHost;
}

export interface HopRequest {
  method: string;
  headers: OutgoingHttpHeaders;
  signal: AbortSignal;
  /** Extra trusted CA certificates (PEM) for https targets and proxies. */
  ca?: string;
}

/** TLS options trusting `ca` besides Node's bundled roots (`ca` alone would replace them). */
export function trustedCa(ca: string | undefined): { ca?: string[] } {
  return ca ? { ca: [...tls.rootCertificates, ca] } : {};
}

function proxyAuth(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const creds = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(creds).toString('base64')}` };
}

function toProxy(proxy: Hop, req: HopRequest, path: string, headers: OutgoingHttpHeaders): ClientRequest {
  const mod = proxy.url.protocol === 'https:' ? https : http;
  return mod.request({
    hostname: proxy.pinned.host,
    port: proxy.pinned.port,
    path,
    method: req.method,
    headers: { ...headers, ...proxyAuth(proxy.url) },
    lookup: pinnedLookup(proxy.pinned),
    signal: req.signal,
    agent: false,
    ...trustedCa(req.ca),
  });
}

/** Where to connect for `target`: an IP literal of its checked addresses, bracketed when IPv6. */
function checkedAuthority(target: Hop): string {
  const ip = target.pinned.addresses[0]!;
  return `${ip.family === 6 ? `[${ip.address}]` : ip.address}:${target.pinned.port}`;
}

/** Opens a TLS tunnel to the target's checked address through the proxy (verified against the target's name). */
function tunnel(proxy: Hop, target: Hop, signal: AbortSignal, ca: string | undefined): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const authority = checkedAuthority(target);
    const req = toProxy(proxy, { method: 'CONNECT', headers: {}, signal }, authority, { host: authority });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new Error(`the proxy refused the tunnel to ${target.url.host} (HTTP ${res.statusCode})`));
        return;
      }
      const servername = parseIp(target.pinned.host) ? undefined : target.pinned.host;
      const secure = tls.connect({ socket, servername, ...trustedCa(ca) });
      const fail = (err: Error) => {
        secure.destroy();
        reject(err);
      };
      secure.once('error', fail);
      secure.once('secureConnect', () => {
        secure.off('error', fail);
        resolve(secure);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts a request to `target` through `proxy`; the caller writes the body and reads the answer. */
export async function requestViaProxy(proxy: Hop, target: Hop, req: HopRequest): Promise<ClientRequest> {
  if (target.url.protocol === 'http:') {
    const absolute = new URL(target.url.href);
    absolute.username = '';
    absolute.password = '';
    return toProxy(proxy, req, absolute.href, req.headers);
  }
  const socket = await tunnel(proxy, target, req.signal, req.ca);
  return https.request({
    hostname: target.pinned.host,
    port: target.pinned.port,
    path: `${target.url.pathname}${target.url.search}`,
    method: req.method,
    headers: req.headers,
    signal: req.signal,
    // No agent: the request runs on this one tunnel (an agent would open its own connection).
    createConnection: () => socket,
  });
}

export type { IncomingHttpHeaders };
