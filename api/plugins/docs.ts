/**
 * The OpenAPI document, browsable: Swagger UI (@fastify/swagger-ui) at `/api/v1/docs`, open to
 * anyone like the document itself (`/api/v1/openapi.json`). Trying a route out asks for a key
 * ("Authorize"): the page has no powers of its own. Its assets are served from the package, with
 * the package's own Content-Security-Policy (script hashes), minus the parts that assume HTTPS.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const DOCS_PATH = '/api/v1/docs';

export async function docsPlugin(app: FastifyInstance): Promise<void> {
  // Every route of this scope (the UI's page, assets and JSON) is public.
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config as object), auth: false } as typeof route.config;
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { deepLinking: true, persistAuthorization: false, validatorUrl: null },
    staticCSP: true,
    // Served over plain HTTP on a laptop: no upgrade to HTTPS, no remote validator badge.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, '').replace(/ validator\.swagger\.io/, ''),
  });
}
