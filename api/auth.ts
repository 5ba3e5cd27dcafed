/**
 * Bearer API keys. Every route but health, the OpenAPI document and the demo model requires one;
 * the key (stored as a keyed hash) names the tenant every query is scoped to. Keys are looked up on
 * every request, uncached: a revoked key or a disabled tenant's key is refused from the next request.
 *
 * RAGFlow-compatible routes answer as RAGFlow does: no Authorization header → HTTP 401 with
 * `{code: 401}` (its REST contract tests), an unknown key → `{code: 109, message:
 * "Authentication error: API key is invalid!"}` (its SDK token check). Our routes answer 401.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../src/io/store/contract';

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
  }
}

export function bearerKey(header: string | undefined): string | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^bearer\s+/i.test(trimmed)) return trimmed.replace(/^bearer\s+/i, '').trim() || null;
  return trimmed || null;
}

function reject(request: FastifyRequest, reply: FastifyReply, missing: boolean): FastifyReply {
  if (request.routeOptions.config?.ragflow) {
    if (missing) return reply.status(401).send({ code: 401, message: "<Unauthorized '401: Unauthorized'>" });
    return reply.status(200).send({ code: 109, message: 'Authentication error: API key is invalid!' });
  }
  return reply
    .status(401)
    .header('www-authenticate', 'Bearer')
    .send({ code: 'UNAUTHENTICATED', message: missing ? 'Missing API key: send "Authorization: Bearer <key>"' : 'Invalid API key' });
}

export function installAuth(app: FastifyInstance, store: Store): void {
  app.decorateRequest('tenantId', '');
  app.decorateRequest('apiKeyId', '');
  app.decorateRequest('tenantAdmin', false);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.auth === false || !request.routeOptions.url) return;
    const key = bearerKey(request.headers.authorization);
    if (!key) return reject(request, reply, true);
    const owner = await store.tenants.authenticate(key);
    if (!owner) return reject(request, reply, false);
    request.tenantId = owner.tenantId;
    request.apiKeyId = owner.keyId;
    request.tenantAdmin = owner.admin;
  });
}
