/**
 * The run view (web/): a small browser app served by the API itself — same origin, same keys,
 * no build step (plain ES modules and CSS, read from web/ when the app is built). The page holds
 * no powers of its own: it signs in with an API key and calls the API like any client.
 *
 * Every file goes out with a strict Content-Security-Policy (scripts and styles from this origin
 * only, no inline script, no eval, no connection elsewhere), so text a model or a canvas wrote
 * cannot turn into script even if it reached the page as markup. `/api/v1/ui/config` tells the
 * page where the Temporal UI is, for its deep links.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppDeps } from '../deps';

export const UI_PATH = '/ui/';
const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');

export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** web/'s files by their path under /ui/ (only known kinds; nothing outside web/ is reachable). */
async function readAssets(dir: string, prefix = ''): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) {
      for (const [k, v] of await readAssets(path.join(dir, entry.name), `${rel}/`)) assets.set(k, v);
      continue;
    }
    const type = TYPES[path.extname(entry.name)];
    if (!type) continue;
    const body = await fs.readFile(path.join(dir, entry.name));
    assets.set(rel, { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` });
  }
  return assets;
}

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', UI_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

export async function uiPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const assets = await readAssets(WEB_DIR);
  const open = { config: { auth: false }, schema: { hide: true } };

  app.get('/', open, async (_request, reply) => reply.redirect(UI_PATH));
  app.get('/ui', open, async (_request, reply) => reply.redirect(UI_PATH));
  app.get('/ui/*', open, async (request, reply) => {
    const rel = (request.params as { '*': string })['*'] || 'index.html';
    const asset = assets.get(rel);
    if (!asset)
      return secure(reply)
        .status(404)
        .send({ code: 'NOT_FOUND', message: `No file ${rel} in the run view` });
    secure(reply).header('cache-control', 'no-cache').header('etag', asset.etag).type(asset.type);
    if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
    return reply.send(asset.body);
  });

  app.get(
    '/api/v1/ui/config',
    { schema: { tags: ['ui'], summary: 'What the run view needs to know: where the Temporal UI is (deep links by workflow id) and its namespace' } },
    async () => ({
      temporal_ui_url: deps.temporalUiUrl ?? null,
      temporal_namespace: deps.temporal.options.namespace,
    }),
  );
}
