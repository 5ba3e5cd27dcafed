/** What starts a run of the engine (run.ts `startRun`): the turn, the session it continues, and the switches the workflow sets under its patches. */
import type { ToolCallingTable } from '../runSettings';
import type { SessionState } from './state';

export interface RunStartInput {
  runId: string;
  messageId: string;
  /** The user's query (`sys.query`). */
  query: unknown;
  /** Begin form values, `{key: value}` or `{key: {value}}`. */
  inputs?: Record<string, unknown> | null;
  files?: unknown[];
  userId?: string;
  session?: SessionState | null;
  /**
   * Legacy greeting turn: a new session of a v0.x canvas runs once without a query so that its
   * first Answer shows the prologue (RAGFlow v0.x ran this when the session was created).
   */
  greeting?: boolean;
  /** A run inside another run (a sub-agent): the conversation is the parent's, not a new turn. */
  nested?: boolean;
  /** Which model factories call tools natively (for an Agent's `auto` strategy). */
  toolCalling?: ToolCallingTable;
  /** A webhook call (Begin in Webhook mode): `{query, headers, body, input}`. */
  webhook?: Record<string, unknown>;
  /**
   * Whoever started the run already recorded its `workflow_started` as event 1 (the API does, so a
   * client's stream opens as soon as the run is accepted, not when a worker first picks it up).
   */
  announced?: boolean;
  /** `auto_play` Messages ask for speech (the workflow sets it under its patch). */
  speech?: boolean;
  /** An Iteration with `max_concurrency` > 0 fans its items out (the workflow sets it under its patch). */
  parallelItems?: boolean;
  /** Messages with `memory_ids` save their turn (the workflow sets it under its patch). */
  memorySave?: boolean;
}
