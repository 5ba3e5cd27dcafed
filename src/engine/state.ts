/**
 * The engine's run state: everything needed to continue a run, as plain JSON (it travels in
 * workflow state and across continue-as-new). Nothing here reads a clock or makes an id.
 */
import type { ActivityCall, TokenUsage } from '../components/calls';
import type { FormFieldSpec, Outcome } from '../components/types';
import type { ToolCallingTable } from '../runSettings';
import type { TemplatePart } from '../dsl/refs';

export type RunStatus = 'running' | 'paused' | 'finished' | 'failed' | 'canceled';

export type NodeStatus =
  /** Running, or waiting for its calls. */
  | 'running'
  /** A model answer planned to stream into a Message that has not rendered yet. */
  | 'streaming'
  | 'finished'
  | 'failed'
  | 'canceled';

export interface NodeState {
  status: NodeStatus;
  /** The node failed and its `comment` default value stands in for its output. */
  defaulted?: boolean;
  /** ms since epoch */
  startedAt: number;
  finishedAt: number | null;
  error: string | null;
  /** Calls made for this node (model rounds, tool calls). */
  calls: number;
  usage: TokenUsage;
}

export type HistoryEntry = [role: 'user' | 'assistant', content: string];

export interface RunUsage extends TokenUsage {
  calls: number;
}

/** A call the engine is waiting for: one member of a group. */
export interface PendingCall {
  group: string;
  index: number;
  activity: ActivityCall['activity'];
}

/** The calls one outcome of a component asked for; delivered together when all are back. */
export interface CallGroup {
  componentId: string;
  /** `stream`: the node renders into a Message (its model calls stream into the event log). */
  kind: 'component' | 'stream';
  /** Several calls (`calls` outcome: onResult gets every outcome) or one (`call`). */
  multi: boolean;
  size: number;
  memo?: unknown;
  activities: ActivityCall['activity'][];
  results: Record<number, { ok: boolean; value?: unknown; error?: string; code?: string }>;
}

/** A model answer planned at batch time and carried out when a Message renders it. */
export interface DeferredCall {
  outcome: Outcome;
}

/** Where a Message is in rendering its template. */
export interface MessageCursor {
  componentId: string;
  parts: TemplatePart[];
  index: number;
  content: string;
  inputs: Record<string, unknown>;
  /** The producer whose stream is being awaited. */
  awaiting: string | null;
}

export type Phase =
  /** Between batches: start the next one or finish. */
  | { kind: 'next' }
  /** The batch path[idx, to) runs; waiting for its calls. */
  | { kind: 'batch'; to: number }
  /** Post-processing path[idx, to) at position i (RAGFlow's loop after `_run_batch`). */
  | { kind: 'post'; to: number; i: number; cursor: MessageCursor | null };

/** Conversation state carried from one run of a session to the next. */
export interface SessionState {
  history: HistoryEntry[];
  /** `sys.*` and `env.*` values. */
  globals: Record<string, unknown>;
  memory: unknown[];
  retrieval: unknown[];
  /** Components that ran in earlier turns (they count as "on the path" for dependency checks). */
  ranBefore: string[];
  /** Legacy `Answer` canvases: where the next turn starts. */
  continueAt: string[] | null;
}

export interface RunState {
  v: 1;
  runId: string;
  messageId: string;
  status: RunStatus;
  /** ms since epoch */
  startedAt: number;
  path: string[];
  idx: number;
  phase: Phase;
  outputs: Record<string, Record<string, unknown>>;
  /** Values each node read, reported as `node_finished.inputs`. */
  nodeInputs: Record<string, Record<string, unknown>>;
  nodes: Record<string, NodeState>;
  globals: Record<string, unknown>;
  history: HistoryEntry[];
  memory: unknown[];
  retrieval: unknown[];
  /** Citations gathered this run (RAGFlow's `retrieval[-1]`). */
  reference: { chunks: Record<string, unknown>; doc_aggs: Record<string, unknown> };
  ranBefore: string[];
  continueAt: string[] | null;
  /** Streaming producers whose node_finished waits for their Message (RAGFlow's partials). */
  partials: string[];
  deferred: Record<string, DeferredCall>;
  pending: Record<string, PendingCall>;
  groups: Record<string, CallGroup>;
  callSeq: number;
  /** Last event sequence number used. */
  seq: number;
  /** Component executions so far (runaway guard). */
  steps: number;
  error: string | null;
  usage: RunUsage;
  runInputs: Record<string, unknown>;
  /** Everything the run showed as messages, in order (the non-stream reply's content). */
  shown: string;
  /** Which model factories call tools natively; null = assume all do. */
  toolCalling: ToolCallingTable | null;
  /** The raw `inputs` of the request, echoed in workflow_started/finished. */
  inputsEcho: unknown;
  /** Unix seconds of the run start: RAGFlow stamps every event envelope with it. */
  createdAt: number;
  /** The form the run waits for (a UserFillUp pause); null when not paused. */
  pause: PauseState | null;
  /** Values submitted for the paused form, consumed by the UserFillUp(s) when they run. */
  fillInputs: Record<string, unknown> | null;
  /** The wait expired: the UserFillUp(s) fail when they run (their exception handling applies). */
  fillExpired: { waitedS: number | null } | null;
  /** Loop items: passes made in the current run of their loop, -1 once the loop ended. */
  loops: Record<string, number>;
  /** Webhook request (Begin in Webhook mode): `query`, `headers`, `body`, and the raw `input`. */
  webhook: Record<string, unknown> | null;
}

/** A run paused at one or more UserFillUps (RAGFlow merges their forms into one). */
export interface PauseState {
  componentIds: string[];
  /** Field key → field definition (type, options, optional...). */
  form: Record<string, FormFieldSpec>;
  tips: string;
  /** Sequence number of the `user_inputs` event (identifies this pause). */
  seq: number;
  /** Seconds the run waits before the forms time out; null: no limit of its own. */
  timeoutS: number | null;
}

/**
 * A state from an earlier build (a continue-as-new checkpoint written before fields were added)
 * brought up to this one: missing fields get their initial values. Replay tests over stored
 * histories keep this honest.
 */
export function upgradeState(raw: RunState): RunState {
  const defaults: Pick<RunState, 'pause' | 'fillInputs' | 'fillExpired' | 'loops' | 'webhook' | 'toolCalling'> = { pause: null, fillInputs: null, fillExpired: null, loops: {}, webhook: null, toolCalling: null };
  return { ...defaults, ...raw };
}

export const ZERO_USAGE: Readonly<RunUsage> = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0 });

export function emptySession(): SessionState {
  return { history: [], globals: {}, memory: [], retrieval: [], ranBefore: [], continueAt: null };
}

/** The part of a finished run a session keeps for its next turn. */
export function sessionAfter(state: RunState): SessionState {
  const ran = new Set([...state.ranBefore, ...state.path]);
  return {
    history: state.history,
    globals: state.globals,
    memory: state.memory,
    retrieval: state.retrieval.slice(-10),
    ranBefore: [...ran],
    continueAt: state.continueAt,
  };
}
