/**
 * Session rows (RAGFlow's agent conversations): creating one with the prologue, and recording the
 * next turn of one. A session runs one turn at a time; its conversation state (history, turn
 * counter, variables, memory) travels into each run and comes back when the run finishes. Below
 * the request services (turns/): given the canvas version they resolved, it writes rows and calls
 * nothing above it; the turn's workflow is started by the service, with runLauncher.ts.
 */
import { announcement, emptySession, sessionAfter, startRun, type SessionState } from '../../src/core/engine';
import { checkBeginTurn, type BeginForm, type BeginTurn } from '../../src/core/components/beginInputs';
import { describeFieldProblems } from '../../src/core/components/forms';
import { AppError } from '../../src/errors';
import type { CanvasRecord, SessionMessage, SessionRecord, StoredEvent } from '../../src/io/store/contract';
import { workflowIdFor } from '../../workflows/definitions';
import { compiledCanvas, type Compiled, type RunCanvas } from './canvasVersions';
import { newId } from '../../src/io/store/time';
import type { LaunchDeps, RecordedStart } from './runLauncher';
import { checkRunInputSizes, DEFAULT_RUN_INPUT_LIMITS } from './runLimits';

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
function greeting(compiled: Compiled, withPrologue: boolean): { messages: SessionMessage[]; state: SessionState } {
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
  deps: Pick<LaunchDeps, 'store'>,
  p: { tenantId: string; canvas: CanvasRecord; name: string; userId: string; source?: string; withPrologue?: boolean; compiled?: Compiled },
): Promise<SessionRecord> {
  const { messages, state } = greeting(p.compiled ?? compiledCanvas(p.canvas), p.withPrologue ?? true);
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

/** A turn with its canvas version resolved (canvasVersions.startableCanvas). */
interface ResolvedTurn extends Omit<TurnRequest, 'session'> {
  compiled: Compiled;
  runCanvas: RunCanvas;
  /** Ids chosen before the turn is recorded (a queued message's, so a repeated start finds its run); absent: new ones. */
  runId?: string;
  messageId?: string;
}

/**
 * Refuses a turn whose Begin inputs do not fit Begin's form (checkBeginTurn: required fields on a
 * session's first turn, types always), naming each field as `$.inputs.<name>`. Our routes answer
 * HTTP 400; RAGFlow's answer with their envelope (code 101, the fields in `data.errors`) and,
 * like a refused UserFillUp answer, HTTP 400.
 */
export function checkBeginInputs(compiled: Compiled, turn: BeginTurn): void {
  if (!compiled.ok) return; // the run reports an invalid canvas with every problem
  const check = checkBeginTurn((compiled.canvas.nodes.begin?.params ?? {}) as BeginForm, turn);
  if (!check.ok) {
    throw new AppError('BAD_REQUEST', `Invalid inputs: ${describeFieldProblems(check.problems)}`, {
      problems: check.problems.map((p) => ({ path: `$.inputs.${p.field}`, message: p.message })),
      ragflowHttpStatus: 400,
    });
  }
}

/** A session's first turn: no user message yet (a greeting is the assistant's). */
export function isFirstTurn(session: Pick<SessionRecord, 'messages'> | null): boolean {
  return !session || !session.messages.some((m) => m.role === 'user');
}

/**
 * A turn whose rows are stored (run, claim, user message, event 1) and whose workflow is not
 * started yet: `start` is what runLauncher.startRecordedRun starts (a start Temporal refuses
 * fails the run and its turn).
 */
export interface BegunTurn {
  runId: string;
  messageId: string;
  session: Pick<SessionRecord, 'id'>;
  /** Event 1 (`workflow_started`), as stored: a stream can show it before the workflow starts. */
  announcement: StoredEvent;
  start: RecordedStart;
}

/**
 * What a turn records, before anything is stored (throws on bad inputs or sizes). The sizes are
 * checked again here: the files and inputs now hold `⟦file:<id>⟧` markers (runFiles.ts).
 */
function prepareTurn(deps: Pick<LaunchDeps, 'limits'>, t: ResolvedTurn, sessionId: string, firstTurn: boolean) {
  checkBeginInputs(t.compiled, { inputs: t.inputs, query: t.query, firstTurn });
  checkRunInputSizes(deps.limits ?? DEFAULT_RUN_INPUT_LIMITS, t);
  const runId = t.runId ?? newId();
  const messageId = t.messageId ?? newId();
  const now = Date.now();
  const start: RecordedStart = {
    runId,
    messageId,
    runCanvas: t.runCanvas,
    tenantId: t.tenantId,
    canvas: t.canvas,
    sessionId,
    query: t.query,
    inputs: t.inputs,
    files: t.files,
    userId: t.userId,
    session: null,
  };
  const queryText = typeof t.query === 'string' ? t.query : JSON.stringify(t.query ?? '');
  const message: SessionMessage = { role: 'user', content: queryText, id: messageId, created_at: now / 1000, files: t.files };
  const event = announcement({ runId, messageId, inputs: t.inputs }, now);
  const run = { id: runId, tenantId: t.tenantId, canvasId: t.canvas.id, workflowId: workflowIdFor(t.canvas.id, runId), canvasVersionId: t.canvas.version_id };
  const stored: StoredEvent = { ...event, data: event.data ?? {}, terminal: false };
  return { start, message, event, stored, run, now };
}

/**
 * Records the session's next turn as a run, in one statement (run row, claim, user message,
 * event 1; see turnStarts.ts); refuses while another run holds the session. Its workflow starts
 * with runLauncher.startRecordedRun. A crash before that leaves a row the reconciler repairs (it
 * fails the row, takes the user message back and releases the session), never a lock without a run.
 */
export async function beginTurn(deps: Pick<LaunchDeps, 'store' | 'limits'>, t: ResolvedTurn & { session: SessionRecord }): Promise<BegunTurn> {
  const p = prepareTurn(deps, t, t.session.id, isFirstTurn(t.session));
  const claimed = await deps.store.starts.turn({ sessionId: t.session.id, run: p.run, message: p.message, announcement: p.event, now: p.now });
  if (!claimed) {
    const active = await deps.store.runs.activeForSession(t.tenantId, t.session.id);
    throw new AppError('CONFLICT', `The session already has a run in progress${active ? ` (task_id ${active.id})` : ''}; wait for it to end or cancel it`, {
      task_id: active?.id,
    });
  }
  return { runId: p.start.runId, messageId: p.start.messageId, session: t.session, announcement: p.stored, start: { ...p.start, session: claimed.state } };
}

/** A first turn together with its session (a completion that names none), in one statement. */
export async function beginTurnInNewSession(
  deps: Pick<LaunchDeps, 'store' | 'limits'>,
  t: ResolvedTurn & { name: string },
): Promise<BegunTurn & { session: SessionRecord }> {
  const { messages, state } = greeting(t.compiled, false);
  const sessionId = newId();
  const p = prepareTurn(deps, t, sessionId, true);
  const fields = { id: sessionId, name: t.name, userId: t.userId, source: 'agent', messages, state };
  const session = await deps.store.starts.newSessionTurn({ session: fields, run: p.run, message: p.message, announcement: p.event, now: p.now });
  return { runId: p.start.runId, messageId: p.start.messageId, session, announcement: p.stored, start: { ...p.start, session: state } };
}
