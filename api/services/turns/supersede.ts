/**
 * An abandoned turn does not block the session's next question. In RAGFlow a turn lives in its
 * request, and the next question is simply answered. Here a turn is a durable run holding the
 * session; when the next question comes while that run is still running and no client of this
 * API process follows it any more (its stream or request went away, or the API restarted), the
 * run is superseded: canceled (its events end with run_canceled, "superseded by the session's
 * next question"), and once it has let go of the session (at most SUPERSEDE_WAIT_MS; after that it
 * is terminated) the new turn starts. A run a client is still reading keeps the session: the
 * second question gets code 102 "already has a run in progress" rather than cutting off the
 * answer someone is reading. A run paused at a form is not superseded: the next request answers
 * or shows that form (formAnswer.ts).
 */
import type { RunRecord } from '../../../src/io/store/contract';
import type { AppDeps } from '../../deps';
import { cancelRunById, terminateAndRelease } from '../cancel';
import { isFollowed, sessionKey } from '../followers';

/** How long a superseded run gets to end on its own before it is terminated. */
export const SUPERSEDE_WAIT_MS = 10_000;
/** How long a followed run's follower may take to be noticed gone (see supersedeIfAbandoned). */
const FOLLOWER_GRACE_MS = 2_000;
export const SUPERSEDED_REASON = "superseded by the session's next question (its client had left)";

/**
 * Supersedes the session's running turn when no client follows it (see the header). A client that
 * just dropped its stream and asks again at once may be faster than the server's notice of the
 * dropped connection: a followed run gets a short grace (FOLLOWER_GRACE_MS) to lose its follower
 * before it counts as abandoned.
 */
export async function supersedeIfAbandoned(deps: AppDeps, tenantId: string, sessionId: string, active: RunRecord | null): Promise<void> {
  if (active?.status !== 'running') return;
  const graceUntil = Date.now() + FOLLOWER_GRACE_MS;
  while (isFollowed(active.id) || isFollowed(sessionKey(sessionId))) {
    if (Date.now() >= graceUntil) return; // a client reads it: it keeps the session
    await new Promise((r) => setTimeout(r, 50));
  }
  // Its follower may have left because the turn ended during the grace: only a run still
  // holding the session is superseded.
  const run = await deps.store.runs.activeForSession(tenantId, sessionId);
  if (run?.id !== active.id || run.status !== 'running') return;
  await endRunForNextTurn(deps, run, sessionId, SUPERSEDED_REASON);
}

/**
 * Cancels the run holding the session with `reason` (its events end with run_canceled) and waits
 * until it has let go of the session: at most SUPERSEDE_WAIT_MS, after that it is terminated.
 * Superseding an abandoned turn and message_policy `interrupt` (messagePolicy.ts) end a run so.
 */
export async function endRunForNextTurn(deps: AppDeps, run: RunRecord, sessionId: string, reason: string): Promise<void> {
  await cancelRunById(deps, run, reason);
  const deadline = Date.now() + SUPERSEDE_WAIT_MS;
  for (;;) {
    // The run's end is recorded first, then the session let go: wait for the latter.
    const session = await deps.store.sessions.get(run.tenant_id, run.canvas_id, sessionId);
    if (!session || session.active_run_id !== run.id) return;
    if (Date.now() >= deadline) {
      await terminateAndRelease(deps, sessionId, run.id, reason);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
