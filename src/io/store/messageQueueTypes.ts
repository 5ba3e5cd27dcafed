/** Message policies of agents and the messages queued behind a session's running turn (messageQueue.ts). */

/** What a message sent while the session's turn runs does (docs/API.md, "message_policy"). */
export type MessagePolicy = 'reject' | 'enqueue' | 'interrupt' | 'steer';

export const MESSAGE_POLICIES: readonly MessagePolicy[] = ['reject', 'enqueue', 'interrupt', 'steer'];

/** A queued message: what its turn starts with, and the run id it starts as. */
export interface QueuedMessage {
  id: string;
  tenant_id: string;
  session_id: string;
  canvas_id: string;
  run_id: string;
  /** The turn as the request gave it (query, inputs, file markers, user id), replayed when it starts. */
  request: QueuedRequest;
  create_time: number;
  taken_time: number | null;
  done_time: number | null;
  /** Why the message left the queue without a turn (its canvas or session was deleted, its inputs no longer fit). */
  error: string | null;
}

export interface QueuedRequest {
  query: unknown;
  inputs: Record<string, unknown> | null;
  files: unknown[];
  userId: string;
  messageId: string;
}

export interface MessageQueueStore {
  /** The agent's policy; null when none was set (reject). */
  policyOf(tenantId: string, canvasId: string): Promise<MessagePolicy | null>;
  setPolicy(tenantId: string, canvasId: string, policy: MessagePolicy): Promise<void>;
  /** Queues a message behind the session's turn; returns it and its position (1: next to run). */
  enqueue(m: Omit<QueuedMessage, 'create_time' | 'taken_time' | 'done_time' | 'error'>): Promise<{ message: QueuedMessage; position: number }>;
  /**
   * Takes the session's first waiting message for starting, unless another starter holds it (taken
   * less than `staleMs` ago): one starter at a time, and a starter that died gives it back.
   */
  takeHead(sessionId: string, staleMs: number): Promise<QueuedMessage | null>;
  /** The message's turn was recorded (its run row exists), or it was dropped for `error`: it leaves the queue. */
  markDone(id: string, error?: string): Promise<void>;
  /** Gives a taken message back (its turn could not be recorded yet: the session is held). */
  release(id: string): Promise<void>;
  /** Sessions with waiting messages, oldest first (the reconciler's sweep). */
  waitingSessions(limit: number): Promise<Array<{ tenant_id: string; session_id: string }>>;
  byRunId(runId: string): Promise<QueuedMessage | null>;
}
