/**
 * Starts canvas runs, the lowest step of every request that starts one: records the run (a run
 * without a session; a session turn is recorded by sessions.ts), then starts its workflow with the
 * canvas title as memo and the search attributes operators filter by. It calls nothing above it:
 * the canvas version comes resolved (canvasVersions.ts) or is resolved here first. The
 * workflow id names the canvas and the run, so a start repeated after a lost answer finds the
 * same workflow. A row whose workflow never started (the API died in between) is failed by the
 * reconciler (runReconciler.ts) once its grace period is over: no client was told of it, since a
 * run's task id reaches its client only once Temporal accepted the start (turns/turnEvents.ts).
 */
import { InternalConnectionLikeSymbol, WorkflowExecutionAlreadyStartedError, type Client, type InternalConnectionLike } from '@temporalio/client';
import type { SessionState } from '../../src/core/engine/state';
import { announcement } from '../../src/core/engine';
import { AppError } from '../../src/errors';
import type { CanvasRecord, Store } from '../../src/io/store/contract';
import { runsStarted } from '../../src/io/metrics/registry';
import type { AppDeps } from '../deps';
import { CANVAS_ID_KEY, RUN_STATUS_KEY, SESSION_ID_KEY, TENANT_ID_KEY } from '../../src/core/searchAttributes';
import { canvasRunInput, RUN_REVISION, workflowIdFor, type RunSettings } from '../../workflows/definitions';
import type { RunInputLimits } from './runLimits';
import { failStrandedRun } from './runReconciler';
import { startableCanvas, type RunCanvas } from './canvasVersions';
import { newId } from '../../src/io/store/time';
import { watchAdmission, type AdmissionDeps } from './admission';

export interface LaunchDeps {
  store: Store;
  client: Client;
  taskQueue: string;
  settings: RunSettings;
  limits?: RunInputLimits;
}

export interface LaunchRequest {
  tenantId: string;
  canvas: CanvasRecord;
  sessionId: string | null;
  query: unknown;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string;
  session: SessionState | null;
  /** A run id chosen by the caller (e.g. to claim a session with it first). */
  runId?: string;
  /** The turn's message id (the session's user message carries it). */
  messageId?: string;
  /** A webhook call (Begin in Webhook mode): `{query, headers, body, input}`. */
  webhook?: Record<string, unknown>;
}

/** A recorded run about to start: its ids, and its canvas as the workflow runs it. */
export interface RecordedStart extends LaunchRequest {
  runId: string;
  messageId: string;
  runCanvas: RunCanvas;
}

export interface LaunchedRun {
  runId: string;
  messageId: string;
  workflowId: string;
}

/** What the launcher needs of the app: the store, the Temporal client and the run settings. */
export function launchDeps(deps: AppDeps): LaunchDeps {
  return {
    store: deps.store,
    client: deps.temporal,
    taskQueue: deps.taskQueue,
    settings: deps.runSettings,
    ...(deps.runInputLimits ? { limits: deps.runInputLimits } : {}),
  };
}

/**
 * Eager workflow start: when the client shares its NativeConnection with a worker of this process
 * (the all-in-one `npm start`, the benchmarks), the server answers the start with the run's first
 * workflow task for that worker, skipping a dispatch through matching. Over any other connection
 * the start is an ordinary one (the SDK refuses the flag there).
 */
export function startsEagerly(client: Client): boolean {
  return (client.connection as InternalConnectionLike)[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

/** Records a run without a session and starts its workflow (a webhook call, tests, benchmarks). */
export async function launchRun(deps: LaunchDeps, req: LaunchRequest): Promise<LaunchedRun> {
  const { runCanvas } = startableCanvas(req.canvas, req, deps.limits);
  const runId = req.runId ?? newId();
  const messageId = req.messageId ?? newId();
  // The row and the stream's first event (workflow_started) in one statement, before the start:
  // a client sees its run accepted without waiting for a worker's first workflow task, which a
  // burst of starts queues up.
  const now = Date.now();
  await deps.store.starts.run({
    run: {
      id: runId,
      tenantId: req.tenantId,
      canvasId: req.canvas.id,
      workflowId: workflowIdFor(req.canvas.id, runId),
      canvasVersionId: req.canvas.version_id,
    },
    sessionId: req.sessionId,
    announcement: announcement({ runId, messageId, inputs: req.inputs }, now),
    now,
  });
  return startRecordedRun(deps, { ...req, runId, messageId, runCanvas });
}

/**
 * Starts the workflow of a run whose row and first event are stored. A start Temporal refuses
 * fails the run (its readers get run_failed), withdraws its user message and releases its
 * session, then throws TEMPORAL_UNAVAILABLE.
 */
export async function startRecordedRun(deps: LaunchDeps, req: RecordedStart): Promise<LaunchedRun> {
  const { runId, messageId } = req;
  const workflowId = workflowIdFor(req.canvas.id, runId);
  // TENANT_MAX_RUNS: beyond it the run waits its turn as its row, its workflow started when a place frees up (./admission.ts).
  const cap = deps.settings.tenantMaxRuns;
  if (cap && !(await deps.store.admission.enter({ tenantId: req.tenantId, runId, cap, now: Date.now(), start: req })).admitted) {
    watchAdmission(admissionDeps(deps), req.tenantId);
    return { runId, messageId, workflowId };
  }
  const input = canvasRunInput({
    runId,
    messageId,
    tenantId: req.tenantId,
    canvas: { id: req.canvas.id, title: req.canvas.title, ...req.runCanvas },
    sessionId: req.sessionId,
    query: req.query,
    inputs: req.inputs,
    files: req.files,
    userId: req.userId,
    session: req.session,
    settings: deps.settings,
    ...(req.webhook ? { webhook: req.webhook } : {}),
  });
  input.announced = true;
  input.revision = RUN_REVISION; // the row says running, and so does the start's RunStatus below
  try {
    await deps.client.workflow.start('canvasRun', {
      taskQueue: deps.taskQueue,
      workflowId,
      args: [input],
      memo: { title: req.canvas.title, canvasVersionId: req.canvas.version_id },
      requestEagerStart: startsEagerly(deps.client),
      // Per-tenant fairness on the task queue: a server with fairness on dispatches each tenant's
      // tasks in turn (activities inherit the key); one without it ignores the key (docs/ARCHITECTURE.md).
      priority: { fairnessKey: req.tenantId },
      typedSearchAttributes: [
        { key: CANVAS_ID_KEY, value: req.canvas.id },
        { key: TENANT_ID_KEY, value: req.tenantId },
        { key: RUN_STATUS_KEY, value: 'running' },
        ...(req.sessionId ? [{ key: SESSION_ID_KEY, value: req.sessionId }] : []),
      ],
    });
  } catch (err) {
    // An earlier attempt whose answer was lost did start it: the run is under way.
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { runId, messageId, workflowId };
    // A start whose answer was lost (a deadline, a dropped connection) may have been accepted:
    // only a workflow Temporal does not have makes the run a failed start.
    if (await workflowExists(deps.client, workflowId)) return { runId, messageId, workflowId };
    const reason = err instanceof Error ? err.message : String(err);
    const run = await deps.store.runs.getById(runId);
    if (run) await failStrandedRun(deps.store, run, `Could not start the run on Temporal: ${reason}`, { neverStarted: true });
    throw new AppError('TEMPORAL_UNAVAILABLE', `Could not start the run on Temporal: ${reason}`);
  }
  runsStarted.inc();
  return { runId, messageId, workflowId };
}

/** Whether Temporal holds the workflow; false when it does not, or cannot say within a few seconds (the start then counts as refused). */
async function workflowExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + 5000, () => client.workflow.getHandle(workflowId).describe());
    return true;
  } catch {
    return false;
  }
}

/** What tenant admission needs to start the runs it admits (./admission.ts). */
export function admissionDeps(deps: LaunchDeps & { log?: AdmissionDeps['log'] }): AdmissionDeps {
  return { ...deps, start: (recorded) => startRecordedRun(deps, recorded as RecordedStart) };
}
