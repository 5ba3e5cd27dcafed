/**
 * The engine's run state: everything needed to continue a run, as plain JSON (it travels in
 * workflow state and across continue-as-new). Nothing here reads a clock or makes an id.
 */
import type { ActivityCall, TokenUsage } from '../components/callContracts';
import type { FormFieldSpec, Outcome } from '../components/definition';
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
  /** An `auto_play` Message asked for its speech (post.ts); one with `memory_ids` to save its turn (memorySave.ts). */
  speech?: 'asked';
  memorySave?: 'asked';
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

/** What a run gathers, under the names v1 gave them (both shapes keep these fields as they are). */
export interface RunRecords {
  /** Outputs of each component run so far. */
  outputs: Record<string, Record<string, unknown>>;
  /** Values each node read, reported as `node_finished.inputs`. */
  nodeInputs: Record<string, Record<string, unknown>>;
  nodes: Record<string, NodeState>;
  /** `sys.*` and `env.*` values. */
  globals: Record<string, unknown>;
  history: HistoryEntry[];
  memory: unknown[];
  retrieval: unknown[];
  /** Citations gathered this run (RAGFlow's `retrieval[-1]`). */
  reference: { chunks: Record<string, unknown>; doc_aggs: Record<string, unknown> };
  /** Components that ran in earlier turns of the session. */
  ranBefore: string[];
  /** Legacy `Answer` canvases: where the next turn starts. */
  continueAt: string[] | null;
  /** Component executions so far (runaway guard). */
  steps: number;
  error: string | null;
  usage: RunUsage;
}

export interface RunState extends RunRecords {
  /** Shape version: 2 groups what v1 kept flat (see {@link upgradeState}). */
  v: 2;
  runId: string;
  messageId: string;
  status: RunStatus;
  /** ms since epoch */
  startedAt: number;
  /** Unix seconds of the run start: RAGFlow stamps every event envelope with it. */
  createdAt: number;
  /** Components in the order the run reached them (RAGFlow's `path`); a node may appear more than once. */
  path: string[];
  /** Where the run stands in `path`. */
  cursor: {
    /** Index in `path` of the first component of the batch being run or post-processed (v1 `idx`). */
    position: number;
    /** What happens at that position. */
    phase: Phase;
  };
  /** The side-effecting calls the run waits for. */
  calls: {
    /** Call id → the group and slot its result goes into (v1 `pending`). */
    pending: Record<string, PendingCall>;
    /** Group id → calls one component outcome asked for, delivered together (v1 `groups`). */
    groups: Record<string, CallGroup>;
    /** Model answers planned at batch time, made when a Message renders them (v1 `deferred`). */
    deferred: Record<string, DeferredCall>;
    /** Last number used for a call or group id (v1 `callSeq`). */
    lastId: number;
  };
  /** The run's event log. */
  events: {
    /** Last event sequence number used (v1 `seq`). */
    lastSeq: number;
  };
  /** What the user sees. */
  display: {
    /** Everything the run showed as messages, in order: the non-stream reply's content (v1 `shown`). */
    shownText: string;
    /** Streaming producers whose node_finished waits for their Message (RAGFlow's partials; v1 `partials`). */
    awaitingRender: string[];
  };
  /** What the run was started with. */
  inputs: {
    /** The raw `inputs` of the request, echoed in workflow_started/finished (v1 `inputsEcho`). */
    echo: Record<string, unknown> | null;
    /** Begin's values, `{key: value}`, as components read them (v1 `runInputs`). */
    values: Record<string, unknown>;
    /** Webhook request (Begin in Webhook mode): `query`, `headers`, `body`, and the raw `input`. */
    webhook: Record<string, unknown> | null;
  };
  /** The form the run waits for (a UserFillUp pause); null when not paused. */
  pause: PauseState | null;
  /** What came of the last pause, consumed by the UserFillUp(s) when they run. */
  form: {
    /** Values submitted for the paused form (v1 `fillInputs`). */
    submitted: Record<string, unknown> | null;
    /** The wait expired: the UserFillUp(s) fail with a timeout (v1 `fillExpired`). */
    expired: { waitedS: number | null } | null;
    /** Nobody answered within `escalate_after`: the UserFillUp(s) take their `escalate_goto` branch (absent in runs before it). */
    escalated?: { waitedS: number } | null;
  };
  /** Which model factories call tools natively; null = assume all do. */
  toolCalling: ToolCallingTable | null;
  /** Loop items: passes made in the current run of their loop, -1 once the loop ended. */
  loops: Record<string, number>;
  /** `auto_play` Messages ask for speech (`speak` calls); those with `memory_ids` save their turn (`memorySave`); absent in runs started before each. */
  speech?: boolean;
  /** An Iteration with `max_concurrency` > 0 fans its items out (set under its patch; absent in runs started before it). */
  parallelItems?: boolean;
  /** This state is one item of a parallel Iteration (parallelItems.ts): the body runs once, for item `index`. */
  lane?: { iterationId: string; index: number };
  memorySave?: boolean;
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
  /** When the pause began (engine time, ms): reminders and the escalation count from it (absent in pauses before them). */
  since?: number;
  /** Reminders sent for this pause so far (`form_reminded` events). */
  reminded?: number;
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
