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

export interface RunStart {
  agentId: string;
  query: string;
  inputs: Record<string, unknown> | null;
  /** Continue this session (its next turn); null: a new session. */
  sessionId: string | null;
  userId: string;
}

export async function startRunTurn(deps: AppDeps, tenantId: string, s: RunStart): Promise<LaunchedRun & { sessionId: string }> {
  const canvas = await deps.store.canvases.get(tenantId, s.agentId);
  if (!canvas) throw new AppError('NOT_FOUND', `No canvas ${s.agentId}`, { problems: [{ path: '$.body.agent_id', message: 'no such canvas' }] });
  const session = s.sessionId ? await deps.store.sessions.get(tenantId, canvas.id, s.sessionId) : null;
  if (s.sessionId && !session)
    throw new AppError('NOT_FOUND', `No session ${s.sessionId} of this canvas`, { problems: [{ path: '$.body.session_id', message: 'no such session' }] });
  // Refused before a session is made for it.
  const rows = { store: deps.store, limits: deps.runInputLimits };
  const startable = startableCanvas(canvas, { query: s.query, inputs: s.inputs, files: [] }, rows.limits);
  checkBeginInputs(startable.compiled, { inputs: s.inputs, query: s.query, firstTurn: isFirstTurn(session) });
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
