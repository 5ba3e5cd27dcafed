/**
 * A run started through our runs collection (`POST /api/v1/runs`): a session turn, as a completion
 * takes one (a new session unless one is named), so the conversation and the session's
 * one-run-at-a-time rule are the same whichever route started it; answered at once with the run's
 * id, the run then followed on `GET /api/v1/runs/{id}/events`.
 */
import { AppError } from '../../../src/errors';
import type { AppDeps } from '../../deps';
import { startableCanvas } from '../canvasVersions';
import { launchDeps, startRecordedRun, type LaunchDeps, type LaunchedRun } from '../runLauncher';
import { beginTurn, checkBeginInputs, createSession, isFirstTurn, type TurnRequest } from '../sessions';
import { workflowIdFor } from '../../../workflows/definitions';
import { interruptRun, messagePolicyFor, steerMessage, type MessageOptions, type SteeredMessage } from './messagePolicy';
import { enqueueMessage, type QueuedTurn } from './messageQueue';

export interface RunStart {
  agentId: string;
  query: string;
  inputs: Record<string, unknown> | null;
  /** Continue this session (its next turn); null: a new session. */
  sessionId: string | null;
  userId: string;
  /** What the query does while the session's turn runs (messagePolicy.ts). */
  message?: MessageOptions;
}

/** A run request's outcome: the turn started, or (a running session) the message queued or steered. */
export type RunTurnStart = LaunchedRun & { sessionId: string; queued?: QueuedTurn; steered?: SteeredMessage };

export async function startRunTurn(deps: AppDeps, tenantId: string, s: RunStart): Promise<RunTurnStart> {
  const canvas = await deps.store.canvases.get(tenantId, s.agentId);
  if (!canvas) throw new AppError('NOT_FOUND', `No canvas ${s.agentId}`, { problems: [{ path: '$.body.agent_id', message: 'no such canvas' }] });
  const session = s.sessionId ? await deps.store.sessions.get(tenantId, canvas.id, s.sessionId) : null;
  if (s.sessionId && !session)
    throw new AppError('NOT_FOUND', `No session ${s.sessionId} of this canvas`, { problems: [{ path: '$.body.session_id', message: 'no such session' }] });
  // Refused before a session is made for it.
  const rows = { store: deps.store, limits: deps.runInputLimits };
  const startable = startableCanvas(canvas, { query: s.query, inputs: s.inputs, files: [] }, rows.limits);
  checkBeginInputs(startable.compiled, { inputs: s.inputs, query: s.query, firstTurn: isFirstTurn(session) });
  const active = session ? await deps.store.runs.activeForSession(tenantId, session.id) : null;
  if (session && active?.status === 'running') {
    const policy = await messagePolicyFor(deps, tenantId, canvas.id, s.message?.policy);
    if (policy === 'steer') {
      const steered = await steerMessage(deps, active, s.query, s.message?.messageId);
      return { runId: active.id, messageId: steered.steerId, workflowId: active.workflow_id, sessionId: session.id, steered };
    }
    if (policy === 'enqueue') {
      const message = { tenantId, canvas, session, query: s.query, inputs: s.inputs, files: [], userId: s.userId };
      const queued = await enqueueMessage({ ...launchDeps(deps), log: deps.log }, message);
      return { runId: queued.runId, messageId: queued.messageId, workflowId: workflowIdFor(canvas.id, queued.runId), sessionId: session.id, queued };
    }
    if (policy === 'interrupt') await interruptRun(deps, session.id, active);
  }
  const turnSession =
    session ??
    (await createSession(rows, { tenantId, canvas, name: s.query.slice(0, 250), userId: s.userId, withPrologue: false, compiled: startable.compiled }));
  const turn = { tenantId, canvas, ...startable, session: turnSession, query: s.query, inputs: s.inputs, files: [], userId: s.userId };
  const begun = await beginTurn(rows, turn);
  return { ...(await startRecordedRun(launchDeps(deps), begun.start)), sessionId: turnSession.id };
}

/** Records the session's next turn and starts its workflow (the same steps, for callers holding the rows). */
export async function startTurn(deps: LaunchDeps, t: TurnRequest): Promise<LaunchedRun> {
  const startable = startableCanvas(t.canvas, t, deps.limits);
  const begun = await beginTurn(deps, { ...t, ...startable });
  return startRecordedRun(deps, begun.start);
}
