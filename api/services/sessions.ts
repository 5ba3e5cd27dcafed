/**
 * Sessions (RAGFlow's agent conversations): creating one with the prologue, and starting the
 * next turn of one. A session runs one turn at a time; its conversation state (history, turn
 * counter, variables, memory) travels into each run and comes back when the run finishes.
 */
import { compileCanvas, emptySession, sessionAfter, startRun, type SessionState } from '../../src/core/engine';
import { checkForm, describeFieldProblems } from '../../src/core/components/forms';
import type { FormFieldSpec } from '../../src/core/components/definition';
import { AppError } from '../../src/errors';
import type { CanvasRecord, SessionMessage, SessionRecord } from '../../src/io/store/contract';
import { checkLaunchSizes, launchRun, newId, recordRun, type LaunchDeps, type LaunchedRun } from './runLauncher';

/** RAGFlow's session dict (`_normalize_agent_session`). */
export function sessionView(s: SessionRecord, canvas?: CanvasRecord): Record<string, unknown> {
  return {
    id: s.id,
    name: s.name,
    agent_id: s.agent_id,
    user_id: s.user_id,
    source: s.source,
    message: s.messages,
    ...(canvas ? { dsl: canvas.dsl } : {}),
    create_time: s.create_time,
    update_time: s.update_time,
    create_date: s.create_date,
    update_date: s.update_date,
  };
}

/**
 * The greeting a new session starts with. RAGFlow v0.x canvases (with Answer components) ran a
 * first turn when the session was created so that its Answer showed the prologue and the next
 * turn continued behind it; that turn is pure (Begin + Answer), so the engine runs it here.
 */
function greeting(canvas: CanvasRecord, withPrologue: boolean): { messages: SessionMessage[]; state: SessionState } {
  const compiled = compileCanvas(canvas.dsl);
  if (!compiled.ok) throw new AppError('DSL_INVALID', 'The stored canvas no longer validates', { problems: compiled.problems });
  const prologue = compiled.canvas.view.prologue();
  const legacy = Object.values(compiled.canvas.nodes).some((n) => n.role === 'answer');
  const now = Date.now();
  const firstMessage: SessionMessage[] = prologue && withPrologue ? [{ role: 'assistant', content: prologue, created_at: now / 1000 }] : [];
  if (!legacy) return { messages: firstMessage, state: emptySession() };
  const turn = startRun(compiled.canvas, { runId: newId(), messageId: newId(), query: '', greeting: true }, now);
  if (turn.status !== 'finished' || !turn.state.continueAt) return { messages: firstMessage, state: emptySession() };
  return { messages: [{ role: 'assistant', content: turn.state.display.shownText, created_at: now / 1000 }], state: sessionAfter(turn.state) };
}

/**
 * Creates a session. `withPrologue` (the sessions route) starts its messages with the prologue;
 * a session a completion creates on the fly starts with the user's message, as in RAGFlow.
 */
export async function createSession(
  deps: LaunchDeps,
  p: { tenantId: string; canvas: CanvasRecord; name: string; userId: string; source?: string; withPrologue?: boolean },
): Promise<SessionRecord> {
  const { messages, state } = greeting(p.canvas, p.withPrologue ?? true);
  return deps.store.sessions.create({
    id: newId(),
    tenantId: p.tenantId,
    agentId: p.canvas.id,
    name: p.name,
    userId: p.userId,
    source: p.source ?? 'agent',
    messages,
    state,
  });
}

export interface TurnRequest {
  tenantId: string;
  canvas: CanvasRecord;
  session: SessionRecord;
  query: unknown;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string;
}

/**
 * Checks the Begin inputs a turn sends against Begin's form (types, required fields); keys the
 * form does not declare pass through, as Begin hands every input on. No inputs: nothing to check
 * (a chat turn sends its query; Begin may take it as its single field).
 */
export function checkBeginInputs(canvas: CanvasRecord, inputs: Record<string, unknown> | null): void {
  if (!inputs || Object.keys(inputs).length === 0) return;
  const compiled = compileCanvas(canvas.dsl);
  if (!compiled.ok) return; // the run reports an invalid canvas with every problem
  const form = (compiled.canvas.nodes.begin?.params as { inputs?: Record<string, FormFieldSpec> } | undefined)?.inputs ?? {};
  const check = checkForm(form, inputs, { allowUnknown: true });
  if (!check.ok) {
    throw new AppError('BAD_REQUEST', `Invalid inputs: ${describeFieldProblems(check.problems)}`, {
      problems: check.problems.map((p) => ({ path: `$.inputs.${p.field}`, message: p.message })),
      ragflowHttpStatus: 400,
    });
  }
}

/**
 * Starts the session's next turn as a run; refuses while another run holds the session. The run
 * row comes first, then the claim, then the user message, then the workflow: at every point a
 * crash leaves a row the reconciler can repair (it fails the row, takes the user message back
 * and releases the session), never a lock without a run.
 */
export async function startTurn(deps: LaunchDeps, t: TurnRequest): Promise<LaunchedRun> {
  checkBeginInputs(t.canvas, t.inputs);
  checkLaunchSizes(deps, t);
  const runId = newId();
  const messageId = newId();
  const launch = {
    runId,
    messageId,
    tenantId: t.tenantId,
    canvas: t.canvas,
    sessionId: t.session.id,
    query: t.query,
    inputs: t.inputs,
    files: t.files,
    userId: t.userId,
    session: null,
  };
  await recordRun(deps, launch, runId);
  if (!(await deps.store.sessions.claim(t.session.id, runId))) {
    await deps.store.runs.discard(runId);
    const active = await deps.store.runs.activeForSession(t.tenantId, t.session.id);
    throw new AppError('CONFLICT', `The session already has a run in progress${active ? ` (task_id ${active.id})` : ''}; wait for it to end or cancel it`, {
      task_id: active?.id,
    });
  }
  const askedAt = Date.now() / 1000;
  try {
    // Read the state again now that the session is ours: a turn that ended meanwhile updated it.
    const session = (await deps.store.sessions.get(t.tenantId, t.canvas.id, t.session.id)) ?? t.session;
    const queryText = typeof t.query === 'string' ? t.query : JSON.stringify(t.query ?? '');
    await deps.store.sessions.appendMessages(t.session.id, [{ role: 'user', content: queryText, id: messageId, created_at: askedAt, files: t.files }]);
    return await launchRun(deps, { ...launch, session: session.state, recorded: true });
  } catch (err) {
    // Nothing half-stored: the user message of a turn that did not start goes with the claim.
    await deps.store.sessions.abandonTurn(t.session.id, runId, askedAt);
    throw err;
  }
}
