/**
 * Bearer API keys. Every route but health, the OpenAPI document and the demo model requires one;
 * the key (stored as a keyed hash) names the tenant every query is scoped to. Keys are looked up on
 * every request, uncached (requests arriving while the same key's lookup is in flight share its
 * answer, see services/singleFlight.ts): a revoked key or a disabled tenant's key is refused from
 * the next lookup on.
 *
 * RAGFlow-compatible routes answer as current RAGFlow does (`login_required` in its
 * api/apps/__init__.py raising quart_auth's Unauthorized): a missing, empty, malformed or unknown
 * key all get HTTP 401 `{code: 401, message: "<Unauthorized '401: Unauthorized'>", data: null}`.
 * The OpenAI-compatible routes answer OpenAI's `{error: {message, type, code}}` with 401, so the
 * OpenAI SDKs raise their AuthenticationError. Our own routes answer 401 `{code: UNAUTHENTICATED}`.
 *
 * Failed attempts are throttled per client address (services/authThrottle.ts): over the limit,
 * 429 with Retry-After in every route's shape. A refused request's connection is closed after
 * the answer (`Connection: close`): a client without a key holds no socket.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../src/io/store/contract';
import { FailedAuthThrottle } from './services/authThrottle';
import { SingleFlight } from './services/singleFlight';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string;
    /** Public id of the key the request came with. */
    apiKeyId: string;
    /** Whether that key's tenant is the admin tenant. */
    tenantAdmin: boolean;
  }
  interface FastifyContextConfig {
    /** Set false on routes anyone may call. */
    auth?: boolean;
    /** Answer errors in OpenAI's `{error: {message, type, code}}` shape, with HTTP statuses. */
    openai?: boolean;
  }
}

export function bearerKey(header: string | undefined): string | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^bearer\s+/i.test(trimmed)) return trimmed.replace(/^bearer\s+/i, '').trim() || null;
  return trimmed || null;
}

/** RAGFlow's answer to any request it cannot authenticate (`repr(quart_auth.Unauthorized())`). */
export const RAGFLOW_UNAUTHORIZED = { code: 401, message: "<Unauthorized '401: Unauthorized'>", data: null } as const;

function reject(request: FastifyRequest, reply: FastifyReply, missing: boolean): FastifyReply {
  void reply.header('connection', 'close');
  if (request.routeOptions.config?.ragflow) return reply.status(401).send(RAGFLOW_UNAUTHORIZED);
  if (request.routeOptions.config?.openai) {
    const message = missing
      ? 'You didn\'t provide an API key. Send it as "Authorization: Bearer <key>".'
      : 'Incorrect API key provided. Use an agent-canvas API key.';
    return reply
      .status(401)
      .header('www-authenticate', 'Bearer')
      .send({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
  }
  return reply
    .status(401)
    .header('www-authenticate', 'Bearer')
    .send({ code: 'UNAUTHENTICATED', message: missing ? 'Missing API key: send "Authorization: Bearer <key>"' : 'Invalid API key' });
}

/** 429 for an address over its failed-attempt budget, in the route's shape. */
function throttled(request: FastifyRequest, reply: FastifyReply, waitMs: number): FastifyReply {
  const seconds = Math.ceil(waitMs / 1000);
  const message = `Too many failed API key attempts from this address; retry in ${seconds} s`;
  void reply.status(429).header('retry-after', String(seconds)).header('connection', 'close');
  if (request.routeOptions.config?.ragflow) return reply.send({ code: 429, message, data: null });
  if (request.routeOptions.config?.openai) return reply.send({ error: { message, type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } });
  return reply.send({ code: 'TOO_MANY_REQUESTS', message });
}

export interface AuthLimits {
  /** Failed attempts one address may make per window (0: no throttle). */
  failureLimit: number;
  failureWindowMs: number;
}

export function installAuth(app: FastifyInstance, store: Store, limits: AuthLimits): void {
  app.decorateRequest('tenantId', '');
  app.decorateRequest('apiKeyId', '');
  app.decorateRequest('tenantAdmin', false);
  const lookups = new SingleFlight<Awaited<ReturnType<Store['tenants']['authenticate']>>>();
  const throttle = new FailedAuthThrottle(limits.failureLimit, limits.failureWindowMs);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.auth === false || !request.routeOptions.url) return;
    const wait = throttle.retryAfterMs(request.ip);
    if (wait > 0) return throttled(request, reply, wait);
    const key = bearerKey(request.headers.authorization);
    if (!key) return reject(request, reply, true);
    const owner = await lookups.get(key, () => store.tenants.authenticate(key));
    if (!owner) {
      throttle.fail(request.ip);
      return reject(request, reply, false);
    }
    request.tenantId = owner.tenantId;
    request.apiKeyId = owner.keyId;
    request.tenantAdmin = owner.admin;
  });
}
