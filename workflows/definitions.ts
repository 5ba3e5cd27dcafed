/**
 * The run workflow's contract with its callers: input, result, signals and queries. The API
 * imports these definitions (they carry no workflow code).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { InputsSubmission } from '../src/core/engine/run';
import type { RunProgress } from '../src/core/engine/progress';
import type { RunSettings } from '../src/core/runSettings';
import type { NestTarget } from '../src/core/engine/runEvents';
import type { EngineCall } from '../src/core/engine/step';
import type { PreparedCanvas } from '../src/core/engine/prepared';
import type { ReusedItems } from '../src/core/engine/parallelItems';
import type { RunState, RunStatus, RunUsage, SessionState } from '../src/core/engine/state';
import type { RunStateV1 } from '../src/core/engine/stateUpgrade';
import type { SteerMessage } from '../src/core/engine/steer';

export type { RunProgress };

export { DEFAULT_RUN_SETTINGS, type RunSettings } from '../src/core/runSettings';

/** Where a continued run picks up: the engine state and the calls it was about to make. */
export interface RunCheckpoint {
  /** v2; a checkpoint in an older history may hold a v1 state (upgradeState reads both). */
  state: RunState | RunStateV1;
  calls: EngineCall[];
}

export interface CanvasRunInput {
  runId: string;
  /** The per-turn message id RAGFlow puts on every event. */
  messageId: string;
  tenantId: string;
  canvasId: string;
  sessionId: string | null;
  title: string;
  /** The normalized canvas DSL (secrets redacted); parsed when `prepared` is set. */
  dsl: unknown;
  /** The canvas compiled by the API (src/core/engine/prepared.ts); absent in older runs and child runs: the workflow compiles `dsl`. */
  prepared?: PreparedCanvas;
  query: unknown;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string;
  session: SessionState | null;
  settings: RunSettings;
  /** Set when the run continues as a new execution (long agent runs): where it picks up. */
  checkpoint?: RunCheckpoint;
  /** A webhook call (Begin in Webhook mode): `{query, headers, body, input}`. */
  webhook?: Record<string, unknown>;
  /** A child run (InvokeCanvas): where its events are mirrored in the parent's log. */
  nest?: NestTarget;
  /** The API recorded `workflow_started` (event 1) when it accepted the run; absent in older runs. */
  announced?: boolean;
  /** What the starter of the run promises its workflow ({@link RUN_REVISION}); absent in older runs and child runs. */
  revision?: number;
  /** A fork (time travel): the run starts from another run's batch snapshot instead of Begin. */
  fork?: ForkInput;
  /** A replay (time travel): with tools frozen, its tool calls are answered from the source's journal. */
  replay?: { sourceRunId: string; tools: 'frozen' | 'live' };
}

/** Where a fork starts (docs/ARCHITECTURE.md, "Time travel"): the snapshot, loaded by reference. */
export interface ForkInput {
  sourceRunId: string;
  /** The snapshot's path position in the source run. */
  position: number;
  /** Values replaced before the fork runs on (src/core/engine/fork.ts, ForkStart.overrides). */
  overrides: Record<string, unknown>;
  /** A fork inside an item of a parallel Iteration: the earlier items' values (src/core/engine/forkPoint.ts). */
  items?: ReusedItems;
}

/**
 * The revision of the run's start the API gives new runs (`CanvasRunInput.revision`). Revision 2:
 * - the start recorded the run as running (its row, and the RunStatus search attribute it was
 *   started with), so the first step does not record it again;
 * - the run takes every branch its workflow code once introduced under a patch (step events with
 *   the call, the closing local activity, auto-play speech) without asking `patched()`.
 * A patch decides between the code of older and newer runs, and costs each run that asks two
 * history events (its marker, and an upsert of TemporalChangeVersion, a visibility write). A run
 * whose input says revision 2 was started by an API of this code or later, so it needs no marker:
 * its input, recorded in its history, decides the branch the same way on every replay. Older
 * histories have no revision and replay their patches as before. Measured: a Begin → LLM →
 * Message run went from 18 to 13 history events, three visibility writes fewer.
 */
export const RUN_REVISION = 2;

/** Whether the run was started at revision 2 or later (see {@link RUN_REVISION}). */
export function startedAtRevision2(input: { revision?: number }): boolean {
  return (input.revision ?? 1) >= 2;
}

/** What a canvas run starts from, whoever starts it (the API for a turn, a run for InvokeCanvas). */
export interface CanvasRunStart {
  runId: string;
  /** Defaults to the run id (a child run has no turn of its own). */
  messageId?: string;
  tenantId: string;
  canvas: { id: string; title: string; dsl: unknown; prepared?: PreparedCanvas };
  query: unknown;
  /** Begin's values, echoed as given in workflow_started (null: none). */
  inputs?: Record<string, unknown> | null;
  files?: unknown[];
  /** Defaults to the tenant (a child run acts for its parent's tenant). */
  userId?: string;
  sessionId?: string | null;
  session?: SessionState | null;
  settings: RunSettings;
  webhook?: Record<string, unknown>;
  nest?: NestTarget;
}

/** The one builder of a canvas run's input, so the API's runs and child runs cannot drift apart. */
export function canvasRunInput(start: CanvasRunStart): CanvasRunInput {
  return {
    runId: start.runId,
    messageId: start.messageId ?? start.runId,
    tenantId: start.tenantId,
    canvasId: start.canvas.id,
    sessionId: start.sessionId ?? null,
    title: start.canvas.title,
    dsl: start.canvas.dsl,
    ...(start.canvas.prepared ? { prepared: start.canvas.prepared } : {}),
    query: start.query,
    inputs: start.inputs ?? null,
    files: start.files ?? [],
    userId: start.userId ?? start.tenantId,
    session: start.session ?? null,
    settings: start.settings,
    ...(start.webhook ? { webhook: start.webhook } : {}),
    ...(start.nest ? { nest: start.nest } : {}),
  };
}

export interface CanvasRunResult {
  status: RunStatus;
  /** What the run showed the user (the concatenated messages). */
  content: string;
  outputs: unknown;
  usage: RunUsage;
  error: string | null;
}

/** Cancels the run: in-flight calls are cancelled, nothing further starts. */
export const cancelSignal = defineSignal<[reason?: string]>('cancel');
export const progressQuery = defineQuery<RunProgress>('progress');

/** What the inputs update answers: the pause it resumed (events after `seq` are the continuation). */
export interface InputsAccepted {
  seq: number;
}

/**
 * Submits form values to a run paused at a UserFillUp. A validator checks them against the form
 * first: a bad submission is rejected (the update never enters history) with an
 * ApplicationFailure of type `FORM_INVALID` whose details hold the field problems.
 */
export const submitInputsUpdate = defineUpdate<InputsAccepted, [InputsUpdate]>('submitInputs');

/** The inputs update's argument: the submission, and the pause it answers (the seq of its `user_inputs` event; absent in older callers). */
export interface InputsUpdate extends InputsSubmission {
  /** The validator refuses an answer meant for another pause than the one the run waits at. */
  pauseSeq?: number;
}

/** The failure type of a rejected submission. */
export const FORM_INVALID = 'FORM_INVALID';

/** The failure type of a submission for a pause the run no longer waits at (already answered, or another pause). */
export const INPUTS_NOT_WAITING = 'INPUTS_NOT_WAITING';

/** What the steer update answers: the Agents that take the message before their next model request. */
export interface SteerAccepted {
  component_ids: string[];
}

/**
 * Steers a message into the running Agents (message_policy steer). Sent with the request's message
 * id as the update id, so a retried request is applied once (Temporal answers a repeated id with
 * the first outcome; the handler ignores an id it has taken; both within one execution). A message no Agent can take is
 * refused by the validator (never enters history) with an ApplicationFailure of type `STEER_REFUSED`.
 */
export const steerMessageUpdate = defineUpdate<SteerAccepted, [SteerMessage]>('steerMessage');

/** The failure type of a steered message the run cannot take now. */
export const STEER_REFUSED = 'STEER_REFUSED';

export function workflowIdFor(canvasId: string, runId: string): string {
  return `canvas-${canvasId}-run-${runId}`;
}
