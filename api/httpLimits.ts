/**
 * Bounds on what one HTTP client can hold open (docs/DEPLOY.md, "HTTP limits"). Without them a
 * client that opens sockets and never finishes a request keeps each one forever (Fastify turns
 * Node's request timeout off), and enough of them exhaust the process's file descriptors: then
 * /health, the store and Temporal all fail together.
 *
 * - headers: a request's headers must arrive within `headersTimeoutMs` of its first byte, or of
 *   the connection opening (an idle fresh socket counts too); else 408 and the socket is closed.
 * - request: the whole request, body included, within `requestTimeoutMs` (uploads are up to
 *   100 MB: at 2 MB/s that is under a minute). It stops counting once the request is read, so
 *   a long answer — an SSE stream, a blocking completion — is not cut.
 * - keep-alive: an idle socket between requests is closed after `keepAliveTimeoutMs` (above the
 *   60 s idle timeout of common load balancers, so they never reuse a socket we are closing).
 * - connections: at most `maxConnectionsPerAddress` open sockets per client address (more are
 *   closed as they arrive), and `maxConnections` in all, kept below the file-descriptor limit so
 *   the store, Temporal and files always have descriptors left; at that limit the oldest socket
 *   still waiting for its headers makes room for the new one.
 * - backlog: a burst of connections waits in the kernel's accept queue; Node's default (511)
 *   overflows under a flood and a dropped SYN costs a legitimate client 1–3 s of retransmits.
 *
 * No socket idle timeout: a blocking completion may rightly send nothing for minutes.
 */
import type { IncomingMessage, Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';

export interface HttpLimits {
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (Fastify's trustProxy):
   * false, true (any peer), or the proxies' addresses/CIDRs. It decides the address the
   * failed-key throttle and webhook IP allow-lists see; connection counting always sees the
   * socket's peer.
   */
  trustProxy: boolean | string;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** 0: no limit (behind a reverse proxy every client has the proxy's address). */
  maxConnectionsPerAddress: number;
  /** 0: no limit. */
  maxConnections: number;
  /** Connections the kernel queues before they are accepted (capped by net.core.somaxconn). */
  listenBacklog: number;
  /** Failed API-key attempts one address may make per window before it gets 429 (0: no throttle). */
  authFailureLimit: number;
  authFailureWindowMs: number;
  /** How long a form answer waits for a worker of its run to take it before a 503 with Retry-After (api/services/inputs.ts). */
  formAnswerWaitMs: number;
}

/** Descriptors kept for everything but client sockets: at least 256, or a fifth of the limit. */
function connectionsBelowFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    const soft = m ? Number(m[1]) : NaN;
    if (!Number.isFinite(soft)) return 0;
    return Math.max(64, soft - Math.max(256, Math.floor(soft / 5)));
  } catch {
    return 0; // Not Linux: no limit we can read, none we impose.
  }
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  trustProxy: false,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
  maxConnectionsPerAddress: 256,
  maxConnections: connectionsBelowFileLimit(),
  listenBacklog: 4096,
  authFailureLimit: 20,
  authFailureWindowMs: 60_000,
  formAnswerWaitMs: 30_000,
};

const ENV: Record<Exclude<keyof HttpLimits, 'trustProxy'>, string> = {
  headersTimeoutMs: 'HTTP_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'HTTP_REQUEST_TIMEOUT_MS',
  keepAliveTimeoutMs: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
  maxConnectionsPerAddress: 'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
  maxConnections: 'HTTP_MAX_CONNECTIONS',
  listenBacklog: 'HTTP_LISTEN_BACKLOG',
  authFailureLimit: 'AUTH_FAILURE_LIMIT',
  authFailureWindowMs: 'AUTH_FAILURE_WINDOW_MS',
  formAnswerWaitMs: 'FORM_ANSWER_WAIT_MS',
};

/** HTTP_TRUST_PROXY: empty/false, true, or comma-separated addresses/CIDRs of the proxies. */
function trustProxyFrom(raw: string | undefined): HttpLimits['trustProxy'] {
  const v = raw?.trim() ?? '';
  if (v === '' || v.toLowerCase() === 'false') return false;
  if (v.toLowerCase() === 'true') return true;
  return v;
}

/** The limits from the environment; a value that is not a whole number ≥ 0 stops the start, naming the variable. */
export function httpLimitsFromEnv(env: Record<string, string | undefined>): HttpLimits {
  const limits = { ...DEFAULT_HTTP_LIMITS, trustProxy: trustProxyFrom(env.HTTP_TRUST_PROXY) };
  for (const key of Object.keys(ENV) as Array<keyof typeof ENV>) {
    const raw = env[ENV[key]]?.trim();
    if (raw === undefined || raw === '') continue;
    if (!/^\d+$/.test(raw)) throw new Error(`${ENV[key]} must be a whole number ≥ 0, got ${JSON.stringify(raw)}`);
    limits[key] = Number(raw);
  }
  for (const key of ['headersTimeoutMs', 'requestTimeoutMs', 'keepAliveTimeoutMs', 'listenBacklog', 'authFailureWindowMs', 'formAnswerWaitMs'] as const)
    if (limits[key] === 0) throw new Error(`${ENV[key]} must be above 0 (an unbounded wait is what it prevents)`);
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new Error(`${ENV.headersTimeoutMs} (${limits.headersTimeoutMs}) must not exceed ${ENV.requestTimeoutMs} (${limits.requestTimeoutMs})`);
  return limits;
}

/** Fastify's server options for these limits. */
export function serverOptions(limits: HttpLimits): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout' | 'trustProxy'> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    trustProxy: limits.trustProxy,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: 0,
    // Node checks the two timeouts on this interval (30 s by default, which would let a stalled
    // socket live up to 30 s past its limit): a tenth of the headers timeout, 1 s at most.
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 10))),
    },
  };
}

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack socket) counts as `10.0.0.1`. */
const plainAddress = (address: string | undefined) => (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/**
 * Counts open sockets per client address and closes any over the per-address limit as it
 * arrives. At the total limit a new socket is not refused: the oldest socket that has not yet
 * sent a whole request's headers is closed to make room (a flood of stalled sockets from many
 * addresses would otherwise lock every client out, /health included); only when every open
 * socket has sent a request is the new one closed.
 */
export function limitConnections(server: Server, limits: HttpLimits): { openFrom(address: string): number } {
  const open = new Map<string, number>();
  let total = 0;
  /** Sockets without a request yet, oldest first. */
  const unproven = new Set<Socket>();
  server.on('request', (req: IncomingMessage) => unproven.delete(req.socket));
  // Before the HTTP parser's own listener, so a refused socket is never read from.
  server.prependListener('connection', (socket: Socket) => {
    const address = plainAddress(socket.remoteAddress);
    const count = (open.get(address) ?? 0) + 1;
    if (limits.maxConnectionsPerAddress > 0 && count > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    if (limits.maxConnections > 0 && total >= limits.maxConnections) {
      const oldest = unproven.values().next();
      if (oldest.done) {
        socket.destroy();
        return;
      }
      unproven.delete(oldest.value);
      oldest.value.destroy();
    }
    total++;
    open.set(address, count);
    unproven.add(socket);
    socket.once('close', () => {
      total--;
      unproven.delete(socket);
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return { openFrom: (address) => open.get(plainAddress(address)) ?? 0 };
}
