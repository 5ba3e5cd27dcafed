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
import { z } from 'zod';
import { isEvent } from '../../src/core/engine/runEvents';
import { AppError, ERROR_REGISTRY } from '../../src/errors';
import type { CanvasRecord } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { toAppError } from '../errorHandler';
import { launchDeps } from '../services/completion';
import { followRunEvents } from '../services/eventStream';
import { collect, newCollector } from '../services/replies';
import { launchRun } from '../services/runLauncher';
import { appendWebhookTrace, nowSeconds } from '../services/webhookTrace';
import { cleanWebhookRequest, parseWebhookRequest } from '../services/webhookSchema';
import { checkBodySize, checkWebhookSecurity, WEBHOOK_MAX_BODY, WebhookRateLimiter } from '../services/webhookSecurity';

const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const DATAFLOW_CATEGORY = 'dataflow_canvas';

const bad = (message: string) => new AppError('BAD_REQUEST', message);

/** The webhook part of a Webhook-mode Begin's params (unknown keys are RAGFlow's, kept as they are). */
const WebhookConfig = z.looseObject({
  methods: z
    .array(z.unknown())
    .catch([])
    .default([])
    .transform((m) => m.map((x) => String(x).toUpperCase())),
  security: z.unknown().optional(),
  content_types: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .catch(undefined),
  schema: z.unknown().optional(),
  execution_mode: z.unknown().optional(),
  response: z.unknown().optional(),
});
type WebhookConfig = z.infer<typeof WebhookConfig>;

/** The params of the canvas's Begin when it is in Webhook mode (the mode in any case). */
export function webhookConfigOf(dsl: Record<string, unknown>): WebhookConfig | null {
  const components = (dsl.components ?? {}) as Record<string, { obj?: { component_name?: unknown; params?: Record<string, unknown> } }>;
  for (const c of Object.values(components)) {
    const obj = c?.obj;
    if (String(obj?.component_name ?? '').toLowerCase() !== 'begin') continue;
    if (String(obj?.params?.mode ?? '').toLowerCase() === 'webhook') return WebhookConfig.parse(obj!.params);
  }
  return null;
}

/** "Immediately" mode's answer: `response.status` (200-399) and `body_template` (JSON, else text). */
function immediateAnswer(responseCfg: unknown): { status: number; type: string; body: string } {
  const cfg = (responseCfg && typeof responseCfg === 'object' ? responseCfg : {}) as { status?: unknown; body_template?: unknown };
  const raw = cfg.status ?? 200;
  const status = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : typeof raw === 'number' ? Math.trunc(raw) : NaN;
  if (!Number.isInteger(status)) throw bad(`Invalid response status code: ${String(raw)}`);
  if (status < 200 || status > 399) throw bad(`Invalid response status code: ${status}, must be between 200 and 399`);
  const tpl = cfg.body_template;
  if (tpl === undefined || tpl === null || tpl === '') return { status, type: 'application/json', body: 'null' };
  if (typeof tpl !== 'string') return { status, type: 'application/json', body: JSON.stringify(tpl) };
  try {
    return { status, type: 'application/json', body: JSON.stringify(JSON.parse(tpl)) };
  } catch {
    return { status, type: 'text/plain; charset=utf-8', body: tpl };
  }
}

/** A Message's `status` param (RAGFlow's `message_end.status`) as an HTTP status. */
function messageStatus(raw: unknown, fallback: number): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const status = Number(raw);
  if (!Number.isInteger(status) || status < 100 || status > 599) throw bad(`Invalid message status code: ${String(raw)}`);
  return status;
}

interface Gate {
  canvas: CanvasRecord;
  config: WebhookConfig;
  isTest: boolean;
}

export async function webhookPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;

  /** A test call's run, traced for `/webhook/logs` as RAGFlow traces it (its events, then `finished`). */
  const traceTestCall = async (agentId: string, runId: string, startTs: number) => {
    let error: string | null = null;
    try {
      for await (const e of followRunEvents(store, runId, {
        after: null,
        signal: AbortSignal.timeout(600_000),
        stopAfter: (ev) => ev.event === 'user_inputs',
      })) {
        appendWebhookTrace(agentId, startTs, { event: e.event, message_id: e.message_id, created_at: e.created_at, task_id: e.task_id, data: e.data });
        if (isEvent(e, 'run_failed')) error = String(e.data.error ?? 'the run failed');
      }
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const finished = { event: 'finished', elapsed_time: nowSeconds() - startTs, success: error === null };
    appendWebhookTrace(agentId, startTs, error === null ? finished : { ...finished, error });
  };
  const limiter = new WebhookRateLimiter();
  const gates = new WeakMap<FastifyRequest, Gate>();

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
    const { canvas, config, isTest } = g;
    const startTs = nowSeconds();
    const body = Buffer.isBuffer(request.body) ? request.body : null;
    // Content-Length may be absent (chunked): the size read counts too.
    checkBodySize((config.security ?? {}) as Record<string, unknown>, body?.length ?? 0);
    const parsed = parseWebhookRequest({ query: request.query, headers: request.headers, body }, config.content_types);
    const webhook = cleanWebhookRequest(parsed, config.schema ?? {});
    const immediately = (config.execution_mode ?? 'Immediately') === 'Immediately';
    const answer = immediately ? immediateAnswer(config.response) : null;

    const run = await launchRun(launchDeps(deps), {
      tenantId: canvas.tenant_id,
      canvas,
      sessionId: null,
      query: '',
      inputs: null,
      files: [],
      userId: canvas.tenant_id,
      session: null,
      webhook,
    });
    reply.header('x-task-id', run.runId);
    if (isTest) void traceTestCall(canvas.id, run.runId, startTs);
    // The run is a durable workflow: it goes on after this answer.
    if (answer) return reply.status(answer.status).type(answer.type).send(answer.body);

    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    const collected = newCollector();
    let status = 200;
    for await (const e of followRunEvents(store, run.runId, { after: null, signal: gone.signal, stopAfter: (ev) => ev.event === 'user_inputs' })) {
      collect(collected, e, false);
      if (isEvent(e, 'message_end')) status = messageStatus(e.data.status, status);
    }
    if (gone.signal.aborted) return reply;
    let error = collected.error;
    if (!error && !collected.last) {
      // A run that ended without a single event never started (its workflow could not run).
      const stored = await store.runs.getById(run.runId);
      if (stored?.status === 'failed') error = stored.error ?? 'the run failed';
    }
    if (error) return reply.status(400).send({ code: 400, message: error, success: false });
    return reply.status(status).send({ message: collected.content, success: true, code: status });
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
