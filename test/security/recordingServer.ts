/**
 * A local HTTP server that records every request (method, path, headers, body) and answers by
 * path: `/html` a small page, `/redirect?to=<url>&status=<code>` a redirect, `/loop` a redirect
 * to itself, `/status?code=<n>` that status, `/big?n=<n>` n characters, `/hang` no answer,
 * anything else a JSON echo. Security tests check its log to prove that nothing reached a
 * blocked target.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RecordingServer {
  host: string;
  port: number;
  /** `http://host:port` (IPv6 bracketed). */
  origin: string;
  requests: RecordedRequest[];
  stop(): Promise<void>;
}

export const HTML_PAGE =
  '<html><head><title>T</title><script>var x = 1;</script></head><body><h1>Hello</h1><p>Plain <b>text</b> and <a href="https://example.com/x">a link</a>.</p><img src="a.png"></body></html>';

/** Starts a server on `host` (port chosen by the OS); rejects when the address is unavailable. */
export function startRecordingServer(host = '127.0.0.1'): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://recording.test');
      if (url.pathname === '/html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(HTML_PAGE);
      } else if (url.pathname === '/redirect') {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' });
        res.end();
      } else if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(Number(url.searchParams.get('n') ?? 0)));
      } else if (url.pathname === '/hang') {
        // Never answers; the server's stop() closes the connection.
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' });
        res.end();
      } else if (url.pathname === '/status') {
        res.writeHead(Number(url.searchParams.get('code') ?? 500), { 'content-type': 'text/plain' });
        res.end(`status ${url.searchParams.get('code')}`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, url: req.url, body }));
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        host,
        port,
        origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        requests,
        stop: async () => {
          server.closeAllConnections();
          await new Promise<void>((r) => server.close(() => r()));
        },
      });
    });
  });
}
