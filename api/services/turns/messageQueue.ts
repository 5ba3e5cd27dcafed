/**
 * Messages enqueued behind a session's running turn (message_policy `enqueue`, messagePolicy.ts).
 * A queued message is stored with the run id its turn will start as, so it survives an API
 * restart and a start repeated after a crash finds its run instead of making a second one. It is
 * started by whoever sees the session's turn end: a watcher of this API process (started when the
 * message is queued, it follows the running turn's events to their end), and the run reconciler's
 * sweep (runReconciler.ts), which starts a watcher for every session with waiting messages, so a
 * message queued before a restart is started after it. Messages start one at a time, in order:
 * only the session's first waiting message is ever taken, and a taker holds it until its turn is
 * recorded (a taker that died gives it back after TAKEN_STALE_MS).
 */
import { AppError, isAppError } from '../../../src/errors';
import type { Logger } from '../../../src/io/log';
import type { CanvasRecord, QueuedRequest, SessionRecord } from '../../../src/io/store/contract';
import { newId } from '../../../src/io/store/time';
import { startableCanvas } from '../canvasVersions';
import { followRunEvents } from '../eventStream';
import { startRecordedRun, type LaunchDeps } from '../runLauncher';
import { beginTurn, checkBeginInputs } from '../sessions';

/** How long a taken message stays with its taker before another starter may take it (the taker died). */
export const TAKEN_STALE_MS = 30_000;

export type QueueDeps = LaunchDeps & { log?: Logger };

/** A message to queue: the turn it starts, as the request gave it. */
export interface MessageToQueue {
  tenantId: string;
  canvas: CanvasRecord;
  session: SessionRecord;
  query: unknown;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string;
}

export interface QueuedTurn {
  runId: string;
  messageId: string;
  /** 1: the next turn to run. */
  position: number;
}

/** Queues the message (checked now as its turn will be: a message that cannot start is refused, not queued). */
export async function enqueueMessage(deps: QueueDeps, m: MessageToQueue): Promise<QueuedTurn> {
  const { compiled } = startableCanvas(m.canvas, m, deps.limits);
  checkBeginInputs(compiled, { inputs: m.inputs, query: m.query, firstTurn: false });
  const request: QueuedRequest = { query: m.query, inputs: m.inputs, files: m.files, userId: m.userId, messageId: newId() };
  const runId = newId();
  const queued = await deps.store.messageQueue.enqueue({
    id: newId(),
    tenant_id: m.tenantId,
    session_id: m.session.id,
    canvas_id: m.canvas.id,
    run_id: runId,
    request,
  });
  watchSessionQueue(deps, m.tenantId, m.session.id);
  return { runId, messageId: request.messageId, position: queued.position };
}

/**
 * Starts the session's first waiting message as its next turn: 'started'; 'held' when the session
 * still has a run (or another starter holds the message); 'empty' when nothing waits.
 */
export async function startQueuedTurn(deps: QueueDeps, sessionId: string): Promise<'started' | 'held' | 'empty'> {
  const queue = deps.store.messageQueue;
  for (;;) {
    const head = await queue.takeHead(sessionId, TAKEN_STALE_MS);
    if (!head) return 'empty';
    // A taker that died after recording the turn: the turn is there, the message is done.
    if (await deps.store.runs.getById(head.run_id)) {
      await queue.markDone(head.id);
      continue;
    }
    const canvas = await deps.store.canvases.get(head.tenant_id, head.canvas_id);
    const session = canvas ? await deps.store.sessions.get(head.tenant_id, canvas.id, sessionId) : null;
    if (!canvas || !session) {
      await queue.markDone(head.id, canvas ? 'the session was deleted' : 'the agent was deleted');
      continue;
    }
    const r = head.request;
    let begun;
    try {
      const startable = startableCanvas(canvas, r, deps.limits);
      const turn = { tenantId: head.tenant_id, canvas, ...startable, session, query: r.query, inputs: r.inputs, files: r.files, userId: r.userId };
      begun = await beginTurn(deps, { ...turn, runId: head.run_id, messageId: r.messageId });
    } catch (err) {
      if (isAppError(err, 'CONFLICT')) {
        await queue.release(head.id);
        return 'held';
      }
      // The agent changed under the message (its inputs no longer fit): dropped, and said so to its waiter.
      if (isAppError(err) && err.category === 'user') {
        await queue.markDone(head.id, err.message);
        continue;
      }
      await queue.release(head.id);
      throw err;
    }
    await queue.markDone(head.id);
    // A start Temporal refuses fails the run: its readers get run_failed.
    await startRecordedRun(deps, begun.start).catch((err: unknown) =>
      deps.log?.warn('queued turn could not start', { runId: head.run_id, error: err instanceof Error ? err.message : String(err) }),
    );
    return 'started';
  }
}

/** Sessions this process watches (one watcher each). */
const watched = new Set<string>();

/**
 * Watches the session until its queue is empty: waits for its running turn to end (its events'
 * end), then starts the next queued message, and so on. One watcher per session in this process;
 * the reconciler's sweep starts one for every session with waiting messages.
 */
export function watchSessionQueue(deps: QueueDeps, tenantId: string, sessionId: string): void {
  if (watched.has(sessionId)) return;
  watched.add(sessionId);
  const watch = async () => {
    for (;;) {
      const active = await deps.store.runs.activeForSession(tenantId, sessionId);
      if (active) await runEnd(deps, active.id);
      const outcome = await startQueuedTurn(deps, sessionId);
      if (outcome === 'empty') return;
      // Held by a run not seen above (it started meanwhile), or its end not written yet: look again shortly.
      if (outcome === 'held') await new Promise((r) => setTimeout(r, 250));
    }
  };
  void watch()
    .catch((err: unknown) => deps.log?.warn('message queue watcher stopped', { sessionId, error: err instanceof Error ? err.message : String(err) }))
    .finally(() => watched.delete(sessionId));
}

/** Resolves when the run's events end (a terminal event), from its last event on. */
async function runEnd(deps: QueueDeps, runId: string): Promise<void> {
  const last = await deps.store.runs.lastEvent(runId);
  if (last?.terminal) return;
  const after = last ? { seq: last.seq - 1, sub: 2_147_483_647 } : null;
  for await (const _ of followRunEvents(deps.store, runId, { after, signal: new AbortController().signal })) {
    // only the end matters
  }
}

/** The reconciler's sweep: a watcher for every session with waiting messages (those queued before a restart too). */
export async function watchWaitingQueues(deps: QueueDeps, limit = 100): Promise<number> {
  const sessions = await deps.store.messageQueue.waitingSessions(limit);
  for (const s of sessions) watchSessionQueue(deps, s.tenant_id, s.session_id);
  return sessions.length;
}

/** Waits until the queued message's turn is recorded; throws when it was dropped or the wait was aborted. */
export async function queuedRunRecorded(deps: QueueDeps, runId: string, signal: AbortSignal): Promise<void> {
  for (;;) {
    if (await deps.store.runs.getById(runId)) return;
    const queued = await deps.store.messageQueue.byRunId(runId);
    if (queued?.done_time && !(await deps.store.runs.getById(runId)))
      throw new AppError('CONFLICT', `The queued message was dropped: ${queued.error ?? 'its turn was not recorded'}`, { task_id: runId });
    if (signal.aborted) throw new AppError('BAD_REQUEST', 'the client went away');
    await new Promise((r) => setTimeout(r, 250));
  }
}
