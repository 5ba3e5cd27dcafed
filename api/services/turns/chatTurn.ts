/**
 * A chat turn, the step the two completion services share (agentTurn.ts in RAGFlow's format,
 * openaiTurn.ts in OpenAI's): the canvas version resolved and the start's sizes checked, files
 * turned into references, then the session's turn taken: a new session with its first turn (as
 * RAGFlow creates one when no session id is given), the paused run of the session answered or its
 * form shown again (formAnswer.ts), or the session's next turn (superseding an abandoned one,
 * supersede.ts). A new turn is recorded, not started: the service starts its workflow
 * (turnEvents.ts), so that a client learns a run's task id only once Temporal accepted it.
 *
 * The run does not depend on the request: a client that goes away stops only its reply, and can
 * follow the run again on GET /api/v1/runs/{id}/events. While the request is served, the run (and,
 * before its id is known, the session) counts as followed (followers.ts).
 */
import { AppError } from '../../../src/errors';
import type { EventCursor } from '../../../src/io/store/contract';
import type { AppDeps } from '../../deps';
import { readCanvas } from '../canvasReads';
import { startableCanvas } from '../canvasVersions';
import { followRun, sessionKey } from '../followers';
import { launchDeps } from '../runLauncher';
import { filesAsMarkers, inputFilesAsMarkers } from '../runFiles';
import { beginTurn, beginTurnInNewSession, type BegunTurn } from '../sessions';
import { answerOrShowForm } from './formAnswer';
import { interruptRun, messagePolicyFor, steerMessage, type MessageOptions, type SteeredMessage } from './messagePolicy';
import { enqueueMessage, type QueuedTurn } from './messageQueue';
import { supersedeIfAbandoned } from './supersede';

export interface ChatRequest {
  agentId: string;
  query: unknown;
  sessionId: string | null;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string | null;
  stream: boolean;
  /** RAGFlow's `return_trace` (its format only). */
  returnTrace: boolean;
  /** What the message does while the session's turn runs (messagePolicy.ts); absent: the agent's policy. */
  message?: MessageOptions;
}

/** A turn as a completion delivers it: the run to follow, from where, and (a new turn) its recorded start. */
export interface ChatTurn {
  runId: string;
  canvasId: string;
  sessionId: string;
  /** Where the reply's events start (exclusive); null: from the run's first event. */
  after: EventCursor | null;
  /** A new turn: recorded, its first event known, its workflow not started yet. */
  begun?: BegunTurn;
  /** Ends the following that lets a next question tell this turn from an abandoned one. */
  unfollow: () => void;
  /** message_policy enqueue: the message waits behind the running turn; `runId` is the run it will start as. */
  queued?: QueuedTurn;
  /** message_policy steer: the message went to the running turn's Agents; `runId` is that turn's. */
  steered?: SteeredMessage;
}

const noFollow = () => undefined;

export async function takeChatTurn(deps: AppDeps, tenantId: string, req: ChatRequest): Promise<ChatTurn> {
  // Before anything is stored (a session created on the fly included).
  const canvas = await readCanvas(deps.store, tenantId, req.agentId);
  if (!canvas) throw new AppError('NO_PERMISSION', 'Make sure you have permission to access the agent.');
  const startable = startableCanvas(canvas, req, deps.runInputLimits);
  // Uploaded files travel as references (`⟦file:<id>⟧`), never as bytes.
  const files = await filesAsMarkers(deps, tenantId, req.files);
  const inputs = await inputFilesAsMarkers(deps, tenantId, req.inputs);
  const turn = { tenantId, canvas, ...startable, query: req.query, inputs, files, userId: req.userId ?? tenantId };
  const rows = { store: deps.store, ...(deps.runInputLimits ? { limits: deps.runInputLimits } : {}) };

  const session = req.sessionId ? await deps.store.sessions.get(tenantId, canvas.id, req.sessionId) : null;
  if (req.sessionId && !session) throw new AppError('NOT_FOUND', 'Session not found!');
  if (session) {
    const active = await deps.store.runs.activeForSession(tenantId, session.id);
    const resumedAfter = await answerOrShowForm(deps, session, active, { query: req.query, inputs });
    if (active && resumedAfter) return { runId: active.id, canvasId: canvas.id, sessionId: session.id, after: resumedAfter, unfollow: followRun(active.id) };
    // A message while the session's turn runs: its policy says what it does (messagePolicy.ts).
    const policy = active?.status === 'running' ? await messagePolicyFor(deps, tenantId, canvas.id, req.message?.policy) : 'reject';
    const base = { canvasId: canvas.id, sessionId: session.id, after: null, unfollow: noFollow };
    if (active && policy === 'steer') {
      const text = typeof req.query === 'string' ? req.query : JSON.stringify(req.query ?? '');
      const steered = await steerMessage(deps, active, text, req.message?.messageId);
      return { ...base, runId: active.id, after: steered.after, steered };
    }
    if (policy === 'enqueue') {
      const queued = await enqueueMessage({ ...launchDeps(deps), log: deps.log }, { ...turn, session });
      return { ...base, runId: queued.runId, queued };
    }
    if (active && policy === 'interrupt') await interruptRun(deps, session.id, active);
    else await supersedeIfAbandoned(deps, tenantId, session.id, active);
  }

  // A session's next turn is followed from before its run is visible: a next question arriving
  // while this turn is still starting must not take it for abandoned (the run id is only known
  // once it is recorded). A new session is followed once it exists.
  const followedSession = session ? followRun(sessionKey(session.id)) : null;
  try {
    const name = typeof req.query === 'string' ? req.query.slice(0, 250) : '';
    const begun = session ? await beginTurn(rows, { ...turn, session }) : await beginTurnInNewSession(rows, { ...turn, name });
    const unfollowRun = followRun(begun.runId);
    const unfollowSession = followedSession ?? followRun(sessionKey(begun.session.id));
    const unfollow = () => (unfollowRun(), unfollowSession());
    return { runId: begun.runId, canvasId: canvas.id, sessionId: begun.session.id, after: null, begun, unfollow };
  } catch (err) {
    followedSession?.();
    throw err;
  }
}
