/**
 * RAGFlow's webhook trigger: `/api/v1/agents/{id}/webhook` (any of POST, GET, PUT, PATCH, DELETE,
 * HEAD; no API key) starts a run of a canvas whose Begin is in Webhook mode; the Begin's params
 * hold the webhook's own security, request schema and response. `/webhook/test` is the same for
 * the agent's owner (API key), as RAGFlow's editor uses it.
 *
 * The gate (canvas, mode, method, security) runs before the body is read, as RAGFlow checks
 * before reading it, so unauthenticated callers cannot make us buffer large bodies. Refusals are
 * RAGFlow's: HTTP 400 with `{code: 400, message}`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_REGISTRY } from '../../src/errors';
import type { CanvasRecord } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { toAppError } from '../errorHandler';
import { runWebhookTurn, type WebhookGate } from '../services/turns/webhookTurn';
import { webhookConfigOf } from '../services/webhookConfig';
import { checkWebhookSecurity, WEBHOOK_MAX_BODY, WebhookRateLimiter } from '../services/webhookSecurity';

const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const DATAFLOW_CATEGORY = 'dataflow_canvas';

const bad = (message: string) => new AppError('BAD_REQUEST', message);

export async function webhookPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  const limiter = new WebhookRateLimiter();
  const gates = new WeakMap<FastifyRequest, WebhookGate>();

  // Bodies stay bytes here: the webhook reads them by its configured content type, and a
  // mismatched type is RAGFlow's 400, not Fastify's 415. (Encapsulated: other routes keep JSON.)
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_MAX_BODY }, (_request, body, done) => done(null, body));

  app.setErrorHandler((err, request, reply) => {
    const appErr = toAppError(err);
    if (appErr.category === 'user') {
      const message =
        appErr.details.status === 413 ? `Request body too large: ${request.headers['content-length'] ?? '?'} > ${WEBHOOK_MAX_BODY}` : appErr.message;
      return reply.status(400).send({ code: 400, message });
    }
    deps.log.error('webhook failed', { url: request.url.split('?')[0], code: appErr.code, error: err instanceof Error ? err.stack : String(err) });
    const status = ERROR_REGISTRY[appErr.code].http;
    return reply.status(status).send({ code: status, message: appErr.message });
  });

  /** Everything RAGFlow checks before reading the body; remembers the canvas for the handler. */
  const gate = (isTest: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const { agent_id } = request.params as { agent_id: string };
    let canvas: CanvasRecord | null;
    if (isTest) {
      canvas = await store.canvases.get(request.tenantId, agent_id);
      if (!canvas) return reply.status(200).send({ code: 103, data: false, message: 'Only the owner of the agent is authorized for this operation.' });
    } else {
      canvas = await store.canvases.getById(agent_id);
    }
    if (!canvas) throw bad('Canvas not found.');
    if (canvas.canvas_category === DATAFLOW_CATEGORY) throw bad('Dataflow can not be triggered by webhook.');
    const config = webhookConfigOf(canvas.dsl);
    if (!config) throw bad('Webhook not configured for this agent.');
    const method = request.method.toUpperCase();
    if (config.methods.length > 0 && !config.methods.includes(method)) throw bad(`HTTP method '${method}' not allowed for this webhook.`);
    const contentLength = Number(request.headers['content-length'] ?? 0) || 0;
    checkWebhookSecurity(config.security, { agentId: canvas.id, ip: request.ip, contentLength, headers: request.headers }, limiter);
    gates.set(request, { canvas, config, isTest });
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const g = gates.get(request);
    if (!g) throw new AppError('INTERNAL', 'webhook gate did not run');
    return runWebhookTurn(deps, request, reply, g);
  };

  const route = (url: string, isTest: boolean) =>
    app.route({
      method: [...METHODS],
      url,
      exposeHeadRoute: false,
      bodyLimit: WEBHOOK_MAX_BODY,
      // The test route needs the owner's API key (RAGFlow's 401 shape); the webhook needs none.
      config: isTest ? { ragflow: true } : { auth: false },
      schema: {
        tags: ['agents'],
        summary: isTest
          ? 'Trigger a Webhook-mode agent as its owner (the editor’s test call)'
          : 'Trigger a Webhook-mode agent (its Begin’s security applies; no API key)',
        ...(isTest ? {} : { security: [] }),
      },
      onRequest: gate(isTest),
      handler: handle,
    });
  route('/api/v1/agents/:agent_id/webhook', false);
  route('/api/v1/agents/:agent_id/webhook/test', true);
}
