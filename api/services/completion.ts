/**
 * The chat-completion flow shared by RAGFlow's route and our OpenAI-compatible one: find the
 * agent and session (creating one when none is given), start the turn as a durable run, then
 * stream its events or wait for its reply. The run does not depend on the request: a client that
 * goes away stops only its stream, and can follow the run again on GET /api/v1/runs/{id}/events.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors';
import type { CanvasRecord, EventCursor, SessionRecord, StoredEvent } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { openSse } from '../sse';
import { eventId, followRunEvents } from './eventStream';
import { collect, newCollector, openAiChunkFor, openAiFinalChunk, openAiReply, ragflowReply, type Collected } from './replies';
import { checkLaunchSizes, type LaunchDeps } from './runLauncher';
import { currentPause, submitRunInputs } from './inputs';
import { createSession, startTurn } from './sessions';

export interface CompletionRequest {
  agentId: string;
  query: unknown;
  sessionId: string | null;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string | null;
  stream: boolean;
  returnTrace: boolean;
  /** Reply format: RAGFlow events or OpenAI chat completions. */
  format: 'ragflow' | 'openai';
}

export function launchDeps(deps: AppDeps): LaunchDeps {
  return {
    store: deps.store,
    client: deps.temporal,
    taskQueue: deps.taskQueue,
    settings: deps.runSettings,
    ...(deps.runInputLimits ? { limits: deps.runInputLimits } : {}),
  };
}

/** RAGFlow ends a completion stream at workflow_finished, or at user_inputs (a pause). */
function endsReply(e: StoredEvent): boolean {
  return e.event === 'user_inputs';
}

function publicEvent(e: StoredEvent, sessionId: string): Record<string, unknown> {
  return { event: e.event, message_id: e.message_id, created_at: e.created_at, task_id: e.task_id, data: e.data, session_id: sessionId };
}

async function resolveSession(deps: AppDeps, tenantId: string, canvas: CanvasRecord, req: CompletionRequest): Promise<SessionRecord> {
  if (req.sessionId) {
    const session = await deps.store.sessions.get(tenantId, canvas.id, req.sessionId);
    if (session) return session;
    throw new AppError('NOT_FOUND', 'Session not found!');
  }
  const name = typeof req.query === 'string' ? req.query.slice(0, 250) : '';
  return createSession(launchDeps(deps), { tenantId, canvas, name, userId: req.userId ?? tenantId, withPrologue: false });
}

/**
 * The session's next turn — or, when its run waits at a UserFillUp, that run resumed with the
 * submitted `inputs` (RAGFlow's way to answer a form). A request without inputs to a paused
 * session gets the pending form again, as RAGFlow asks again.
 */
async function turnOrResume(
  deps: AppDeps,
  tenantId: string,
  canvas: CanvasRecord,
  session: SessionRecord,
  req: CompletionRequest,
): Promise<{ run: { runId: string }; after: EventCursor | null }> {
  const active = await deps.store.runs.activeForSession(tenantId, session.id);
  if (active?.status === 'paused') {
    const query = typeof req.query === 'string' ? req.query : req.query === null || req.query === undefined ? '' : JSON.stringify(req.query);
    if (req.inputs && Object.keys(req.inputs).length > 0) {
      const resumed = await submitRunInputs(deps, active, { inputs: req.inputs, ...(query ? { query } : {}) });
      if (query) await deps.store.sessions.appendMessages(session.id, [{ role: 'user', content: query, created_at: Date.now() / 1000 }]);
      return { run: { runId: active.id }, after: resumed.after };
    }
    const pause = await currentPause(deps, active);
    return { run: { runId: active.id }, after: { seq: pause.seq - 1, sub: 2_147_483_647 } };
  }
  const run = await startTurn(launchDeps(deps), {
    tenantId,
    canvas,
    session,
    query: req.query,
    inputs: req.inputs,
    files: req.files,
    userId: req.userId ?? tenantId,
  });
  return { run, after: null };
}

export async function runCompletion(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: CompletionRequest): Promise<unknown> {
  const tenantId = request.tenantId;
  const canvas = await deps.store.canvases.get(tenantId, req.agentId);
  if (!canvas) throw new AppError('NO_PERMISSION', 'Make sure you have permission to access the agent.');
  // Before anything is stored (a session created on the fly included).
  checkLaunchSizes(launchDeps(deps), { query: req.query, inputs: req.inputs, files: req.files, canvas });
  const session = await resolveSession(deps, tenantId, canvas, req);
  const { run, after } = await turnOrResume(deps, tenantId, canvas, session, req);
  const collected = newCollector();

  if (req.stream) {
    const sse = openSse(request, reply, { dataPrefix: req.format === 'openai' ? 'data: ' : 'data:' });
    try {
      for await (const e of followRunEvents(deps.store, run.runId, { after, signal: sse.signal, stopAfter: endsReply })) {
        collect(collected, e, req.returnTrace);
        if (req.format === 'ragflow') sse.send(publicEvent(e, session.id), eventId(e));
        else {
          const piece = openAiChunkFor(e, session.id, canvas.id);
          if (piece) sse.send(piece, eventId(e));
        }
      }
      if (req.format === 'openai' && !sse.signal.aborted) sse.send(openAiFinalChunk(collected, session.id, canvas.id));
      sse.done();
    } catch (err) {
      deps.log.error('completion stream failed', { runId: run.runId, error: err instanceof Error ? err.message : String(err) });
      sse.send({ code: 100, message: err instanceof Error ? err.message : String(err), data: false });
      sse.done();
    }
    return reply;
  }

  const aborted = new AbortController();
  request.raw.on('close', () => {
    if (!reply.sent) aborted.abort();
  });
  for await (const e of followRunEvents(deps.store, run.runId, { after, signal: aborted.signal, stopAfter: endsReply })) collect(collected, e, req.returnTrace);
  return finalReply(req, collected, session.id, canvas.id, run.runId);
}

function finalReply(req: CompletionRequest, c: Collected, sessionId: string, canvasId: string, runId: string): unknown {
  if (req.format === 'openai') {
    if (c.error) throw new AppError('INTERNAL', c.error, { task_id: runId });
    return openAiReply(c, sessionId, canvasId);
  }
  if (c.error) return { code: 100, message: c.error, data: { session_id: sessionId, task_id: runId } };
  return { code: 0, data: ragflowReply(c, sessionId, req.returnTrace) };
}
