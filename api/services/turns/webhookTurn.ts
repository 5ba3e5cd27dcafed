/**
 * A webhook call (`/api/v1/agents/{id}/webhook` and `/webhook/test`), once the plugin's gate let it
 * through (canvas, mode, method, security: all checked before the body is read): the body read by
 * its configured content type and schema, a run without a session started with it, then the
 * answer: "Immediately" mode's configured response at once, otherwise the run's reply (its
 * Message's status). The run is a durable workflow: it goes on after the answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isEvent } from '../../../src/core/engine/runEvents';
import type { CanvasRecord } from '../../../src/io/store/contract';
import type { AppDeps } from '../../deps';
import { followRunEvents } from '../eventStream';
import { collect, newCollector } from '../replies';
import { launchDeps, launchRun } from '../runLauncher';
import { immediateAnswer, messageStatus, type WebhookConfig } from '../webhookConfig';
import { cleanWebhookRequest, parseWebhookRequest } from '../webhookSchema';
import { checkBodySize } from '../webhookSecurity';
import { nowSeconds, traceTestCall } from '../webhookTrace';

/** What the gate found: the canvas, its webhook config, and whether this is the owner's test call. */
export interface WebhookGate {
  canvas: CanvasRecord;
  config: WebhookConfig;
  isTest: boolean;
}

export async function runWebhookTurn(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, g: WebhookGate): Promise<unknown> {
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
  if (isTest) void traceTestCall(deps.store, canvas.id, run.runId, startTs);
  if (answer) return reply.status(answer.status).type(answer.type).send(answer.body);

  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  const collected = newCollector();
  let status = 200;
  for await (const e of followRunEvents(deps.store, run.runId, { after: null, signal: gone.signal, stopAfter: (ev) => ev.event === 'user_inputs' })) {
    collect(collected, e, false);
    if (isEvent(e, 'message_end')) status = messageStatus(e.data.status, status);
  }
  if (gone.signal.aborted) return reply;
  let error = collected.error;
  if (!error && !collected.last) {
    // A run that ended without a single event never started (its workflow could not run).
    const stored = await deps.store.runs.getById(run.runId);
    if (stored?.status === 'failed') error = stored.error ?? 'the run failed';
  }
  if (error) return reply.status(400).send({ code: 400, message: error, success: false });
  return reply.status(status).send({ message: collected.content, success: true, code: status });
}
