/**
 * The `/metrics` text of this process: our registry, then the Temporal SDK's own series. The SDK
 * (its Rust core) serves Prometheus text on a loopback port of its own (server/boot/telemetry.ts
 * picks it); we fetch and append it, so one scrape target per process carries both and operators
 * configure nothing twice. Names cannot clash: the SDK's all start with `temporal_`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { registry } from './registry';

/** A slow SDK endpoint must not stall the scrape: our own series are answered without it. */
const SDK_FETCH_TIMEOUT_MS = 2000;

let sdkMetricsUrl: string | null = null;

/** Where the Temporal SDK's Prometheus exporter of this process listens (null: none). */
export function setTemporalSdkMetricsUrl(url: string | null): void {
  sdkMetricsUrl = url;
}

export interface MetricsPage {
  contentType: string;
  body: string;
}

async function sdkMetricsText(url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(SDK_FETCH_TIMEOUT_MS) });
    if (!res.ok) return `# Temporal SDK metrics unavailable: HTTP ${res.status}\n`;
    const text = await res.text();
    return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  } catch (err) {
    return `# Temporal SDK metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`;
  }
}

/** Everything this process exposes, in Prometheus text format 0.0.4. */
export async function metricsPage(): Promise<MetricsPage> {
  const [ours, sdk] = await Promise.all([registry.metrics(), sdkMetricsUrl ? sdkMetricsText(sdkMetricsUrl) : Promise.resolve('')]);
  const body = ours.endsWith('\n') ? ours : `${ours}\n`;
  return { contentType: registry.contentType, body: body + sdk };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** A bare HTTP listener serving `GET /metrics` (the worker role has no API to hang it on). */
export async function startMetricsServer(opts: { port: number; host: string }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found: GET /metrics\n');
      return;
    }
    metricsPage().then(
      (page) => res.writeHead(200, { 'content-type': page.contentType }).end(page.body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
