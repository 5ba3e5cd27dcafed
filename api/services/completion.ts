/**
 * The chat-completion flow shared by RAGFlow's route and our OpenAI-compatible one: find the
 * agent and session (creating one when none is given), start the turn as a durable run, then
 * stream its events or wait for its reply. The run does not depend on the request: a client that
 * goes away stops only its stream, and can follow the run again on GET /api/v1/runs/{id}/events.
 *
 * An abandoned turn does not block the session's next question. In RAGFlow a turn lives in its
 * request, and the next question is simply answered. Here a turn is a durable run holding the
 * session; when the next question comes while that run is still running and no client of this
 * API process follows it any more (its stream or request went away, or the API restarted), the
 * run is superseded: canceled (its events end with run_canceled, "superseded by the session's
 * next question"), and once it has let go of the session (at most SUPERSEDE_WAIT_MS; after that it
 * is terminated) the new turn starts. A run a client is still reading keeps the session: the
 * second question gets code 102 "already has a run in progress" rather than cutting off the
 * answer someone is reading. A run paused at a form is not superseded: the next request answers
 * or shows that form (turnOrResume).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isEvent } from '../../src/core/engine/runEvents';
import { AppError } from '../../src/errors';
import type { CanvasRecord, EventCursor, SessionRecord, StoredEvent } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { openSse } from '../sse';
import { eventId, followRunEvents } from './eventStream';
import { collect, newCollector, openAiChunkFor, openAiFinalChunk, openAiReply, ragflowReply, type Collected } from './replies';
import { checkLaunchSizes, type LaunchDeps } from './runLauncher';
import { currentPause, submitRunInputs, waitsAtForm } from './inputs';
import { filesAsMarkers, inputFilesAsMarkers } from './runFiles';
import { cancelRunById, terminateAndRelease } from './cancel';
import { followRun, isFollowed } from './followers';
import { beginTurn, beginTurnInNewSession, type BegunTurn } from './sessions';
import { SingleFlight } from './singleFlight';

/** How long a superseded run gets to end on its own before it is terminated. */
export const SUPERSEDE_WAIT_MS = 10_000;
/** How long a followed run's follower may take to be noticed gone (see `abandoned`). */
const FOLLOWER_GRACE_MS = 2_000;
export const SUPERSEDED_REASON = "superseded by the session's next question (its client had left)";

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

/** A turn as the completion delivers it: the run to follow, from where, and (a new turn) its start. */
interface Turn {
  run: { runId: string };
  after: EventCursor | null;
  unfollow: () => void;
  sessionId: string;
  /** A turn recorded here: its first event is known and its workflow not started yet. */
  begun?: BegunTurn;
}

/** The first turn of a session created with it, as RAGFlow creates one when no session id is given. */
async function firstTurn(deps: AppDeps, tenantId: string, canvas: CanvasRecord, req: CompletionRequest): Promise<Turn> {
  const name = typeof req.query === 'string' ? req.query.slice(0, 250) : '';
  const turn = { tenantId, canvas, name, query: req.query, inputs: req.inputs, files: req.files, userId: req.userId ?? tenantId };
  const begun = await beginTurnInNewSession(launchDeps(deps), turn);
  const unfollowRun = followRun(begun.runId);
  const unfollowSession = followRun(sessionKey(begun.session.id));
  return {
    run: { runId: begun.runId },
    after: null,
    sessionId: begun.session.id,
    begun,
    unfollow: () => {
      unfollowRun();
      unfollowSession();
    },
  };
}

async function existingSession(deps: AppDeps, tenantId: string, canvas: CanvasRecord, sessionId: string): Promise<SessionRecord> {
  const session = await deps.store.sessions.get(tenantId, canvas.id, sessionId);
  if (session) return session;
  throw new AppError('NOT_FOUND', 'Session not found!');
}

/**
 * The session's next turn — or, when its run waits at a UserFillUp, that run resumed with the
 * submitted `inputs` (RAGFlow's way to answer a form). A request without inputs to a paused
 * session gets the pending form again, as RAGFlow asks again.
 */
async function turnOrResume(deps: AppDeps, tenantId: string, canvas: CanvasRecord, session: SessionRecord, req: CompletionRequest): Promise<Turn> {
  const active = await deps.store.runs.activeForSession(tenantId, session.id);
  const answers = req.inputs !== null && Object.keys(req.inputs).length > 0;
  // The workflow, not the row, says whether the run waits: a row may say running while it waits at a form.
  if (active?.status === 'paused' || (active?.status === 'running' && answers && (await waitsAtForm(deps, active)))) {
    const query = typeof req.query === 'string' ? req.query : req.query === null || req.query === undefined ? '' : JSON.stringify(req.query);
    if (answers) {
      const resumed = await submitRunInputs(deps, active, { inputs: req.inputs!, ...(query ? { query } : {}) });
      if (query) await deps.store.sessions.appendMessages(session.id, [{ role: 'user', content: query, created_at: Date.now() / 1000 }]);
      return { run: { runId: active.id }, after: resumed.after, unfollow: followRun(active.id), sessionId: session.id };
    }
    const pause = await currentPause(deps, active);
    return { run: { runId: active.id }, after: { seq: pause.seq - 1, sub: 2_147_483_647 }, unfollow: followRun(active.id), sessionId: session.id };
  }
  if (active?.status === 'running' && (await abandoned(active.id, session.id))) {
    // Its follower may have left because the turn ended during the grace: only a run still
    // holding the session is superseded.
    const still = await deps.store.runs.activeForSession(tenantId, session.id);
    if (still?.id === active.id && still.status === 'running') await supersede(deps, session.id, still);
  }
  // Followed from before its run is visible: a next question arriving while this turn is still
  // starting must not take it for abandoned (the run id is only known once the start returns).
  const unfollowSession = followRun(sessionKey(session.id));
  try {
    const begun = await beginTurn(launchDeps(deps), {
      tenantId,
      canvas,
      session,
      query: req.query,
      inputs: req.inputs,
      files: req.files,
      userId: req.userId ?? tenantId,
    });
    const unfollowRun = followRun(begun.runId);
    return {
      run: { runId: begun.runId },
      after: null,
      sessionId: session.id,
      begun,
      unfollow: () => {
        unfollowRun();
        unfollowSession();
      },
    };
  } catch (err) {
    unfollowSession();
    throw err;
  }
}

const sessionKey = (sessionId: string): string => `session:${sessionId}`;

/**
 * Whether no client follows the run. A client that just dropped its stream and asks again at once
 * may be faster than the server's notice of the dropped connection: a followed run gets a short
 * grace (FOLLOWER_GRACE_MS) to lose its follower before it counts as read.
 */
async function abandoned(runId: string, sessionId: string): Promise<boolean> {
  const until = Date.now() + FOLLOWER_GRACE_MS;
  while (isFollowed(runId) || isFollowed(sessionKey(sessionId))) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** Cancels an abandoned run holding the session and waits for it to let go (see the header). */
async function supersede(deps: AppDeps, sessionId: string, run: { id: string } & Parameters<typeof cancelRunById>[1]): Promise<void> {
  await cancelRunById(deps, run, SUPERSEDED_REASON);
  const deadline = Date.now() + SUPERSEDE_WAIT_MS;
  for (;;) {
    // The run's end is recorded first, then the session let go: wait for the latter.
    const session = await deps.store.sessions.get(run.tenant_id, run.canvas_id, sessionId);
    if (!session || session.active_run_id !== run.id) return;
    if (Date.now() >= deadline) {
      await terminateAndRelease(deps, sessionId, run.id, SUPERSEDED_REASON);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const canvasReadsByStore = new WeakMap<AppDeps['store'], SingleFlight<CanvasRecord | null>>();

/** A burst of completions on one agent reads its canvas once (see singleFlight.ts). */
function canvasReads(deps: AppDeps): SingleFlight<CanvasRecord | null> {
  let reads = canvasReadsByStore.get(deps.store);
  if (!reads) canvasReadsByStore.set(deps.store, (reads = new SingleFlight()));
  return reads;
}

export async function runCompletion(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: CompletionRequest): Promise<unknown> {
  const tenantId = request.tenantId;
  const canvas = await canvasReads(deps).get(`${tenantId}\u0000${req.agentId}`, () => deps.store.canvases.get(tenantId, req.agentId));
  if (!canvas) throw new AppError('NO_PERMISSION', 'Make sure you have permission to access the agent.');
  // Before anything is stored (a session created on the fly included).
  checkLaunchSizes(launchDeps(deps), { query: req.query, inputs: req.inputs, files: req.files, canvas });
  // Uploaded files travel as references (`⟦file:<id>⟧`), never as bytes.
  req = { ...req, files: await filesAsMarkers(deps, tenantId, req.files), inputs: await inputFilesAsMarkers(deps, tenantId, req.inputs) };
  const turn = req.sessionId
    ? await turnOrResume(deps, tenantId, canvas, await existingSession(deps, tenantId, canvas, req.sessionId), req)
    : await firstTurn(deps, tenantId, canvas, req);
  try {
    return await deliver(deps, request, reply, req, { ...turn, collected: newCollector(), canvasId: canvas.id });
  } finally {
    turn.unfollow();
  }
}

async function deliver(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  req: CompletionRequest,
  t: Turn & { collected: Collected; canvasId: string },
): Promise<unknown> {
  const { run, collected, begun } = t;
  let after = t.after;
  const session = { id: t.sessionId };
  const canvas = { id: t.canvasId };
  if (req.stream) {
    const sse = openSse(request, reply, { dataPrefix: req.format === 'openai' ? 'data: ' : 'data:' });
    const show = (e: StoredEvent): void => {
      collect(collected, e, req.returnTrace);
      if (req.format === 'ragflow') {
        const out = publicEvent(e, session.id);
        // RAGFlow's `return_trace`: each node_finished carries the trace so far.
        if (req.returnTrace && isEvent(e, 'node_finished')) out.data = { ...e.data, trace: [...collected.trace] };
        sse.send(out, eventId(e));
      } else {
        const piece = openAiChunkFor(e, session.id, canvas.id);
        if (piece) sse.send(piece, eventId(e));
      }
    };
    try {
      // Workflow first: a run is started once Temporal accepted its workflow, and only then does
      // the client learn its task id (event 1). Shown before the start, an API that died in between
      // left a client holding the id of a run the reconciler then failed (issue 38, item 5). A start
      // Temporal refuses fails the run and answers this stream with the error instead.
      if (begun) {
        await begun.start();
        show(begun.announcement);
        after = { seq: begun.announcement.seq, sub: begun.announcement.sub };
      }
      const follow = { after, signal: sse.signal, stopAfter: endsReply, checkRunFirst: !begun && after !== null };
      for await (const e of followRunEvents(deps.store, run.runId, follow)) show(e);
      if (req.format === 'openai' && !sse.signal.aborted) sse.send(openAiFinalChunk(collected, session.id, canvas.id));
      sse.done();
    } catch (err) {
      deps.log.error('completion stream failed', { runId: run.runId, error: err instanceof Error ? err.message : String(err) });
      sse.send({ code: 100, message: err instanceof Error ? err.message : String(err), data: false });
      sse.done();
    }
    return reply;
  }

  // Not streamed: a start Temporal refuses is this request's error.
  if (begun) await begun.start();
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
