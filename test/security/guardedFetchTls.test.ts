/**
 * guardedFetch over HTTPS: directly and through a CONNECT proxy, the connection goes to the
 * address the guard checked while TLS is verified against the host NAME (so pinning the address
 * does not weaken certificate checks). Uses a throwaway certificate from `openssl`; skipped
 * with a message where openssl is missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, type Resolver } from '../../src/io/net';

function makeCertificate(): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'agent-canvas-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=secure.example',
        '-addext',
        'subjectAltName=DNS:secure.example',
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const certificate = makeCertificate();
if (!certificate) console.warn('[test/security/guardedFetchTls] skipped: openssl is not available to make a test certificate');

describe.skipIf(!certificate)('guardedFetch over TLS', () => {
  let tlsServer: Server;
  let proxy: Server;
  let tlsPort = 0;
  let proxyPort = 0;
  const tunnels: string[] = [];
  // Tunnelled sockets leave the HTTP server's bookkeeping: closed by hand at the end.
  const open: Array<{ destroy(): void }> = [];
  // The name exists only here: the socket must use the address the guard checked.
  const resolver: Resolver = async (host) => {
    if (host !== 'secure.example') throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return [{ address: '127.0.0.1', family: 4 }];
  };

  beforeAll(async () => {
    tlsServer = createHttpsServer({ key: certificate!.key, cert: certificate!.cert }, (req, res) => res.end(`secure ${req.url} host=${req.headers.host}`));
    proxy = createHttpServer();
    proxy.on('connect', (req, socket, head) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      open.push(socket);
      const upstream = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      open.push(upstream);
      upstream.on('error', () => socket.destroy());
    });
    await Promise.all([new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r)), new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))]);
    tlsPort = (tlsServer.address() as AddressInfo).port;
    proxyPort = (proxy.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const s of open) s.destroy();
    tlsServer?.closeAllConnections();
    proxy?.closeAllConnections();
    await Promise.all([new Promise((r) => tlsServer?.close(r)), new Promise((r) => proxy?.close(r))]);
  });

  const opts = () => ({ env: { NETWORK_ALLOW_HOSTS: `secure.example,127.0.0.1:${proxyPort}` }, service: 'T', resolver, ca: certificate!.cert });

  it('connects directly to the checked address and verifies the certificate against the name', async () => {
    const r = await guardedFetch(`https://secure.example:${tlsPort}/direct`, {}, opts());
    expect(r.body.toString()).toBe(`secure /direct host=secure.example:${tlsPort}`);
  });

  it('tunnels through a CONNECT proxy to the checked address, not to the name', async () => {
    const r = await guardedFetch(`https://secure.example:${tlsPort}/tunnel?x=1`, {}, { ...opts(), proxy: `http://127.0.0.1:${proxyPort}` });
    expect(r.body.toString()).toBe(`secure /tunnel?x=1 host=secure.example:${tlsPort}`);
    expect(tunnels).toEqual([`127.0.0.1:${tlsPort}`]);
  });

  it('still refuses a certificate that does not name the host', async () => {
    await expect(guardedFetch(`https://127.0.0.1:${tlsPort}/ip`, {}, { ...opts(), env: { NETWORK_ALLOW_HOSTS: '127.0.0.1' } })).rejects.toMatchObject({
      code: 'TOOL_UNAVAILABLE',
      message: expect.stringMatching(/could not reach https:\/\/127\.0\.0\.1:\d+\/ip: Hostname\/IP does not match certificate's altnames/),
    });
  });
});
