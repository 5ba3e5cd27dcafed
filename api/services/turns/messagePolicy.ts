/**
 * A message while the session runs (issue 35, item 2): what a completion or run request does when
 * the session's turn is still running, by `message_policy` — the request's (a body field), else
 * the agent's (stored with its settings), else `reject`:
 * - `reject`: RAGFlow's answer, code 102 "already has a run in progress" (an abandoned run is
 *   still superseded, supersede.ts);
 * - `enqueue`: the message waits in the store and runs as the session's next turn (messageQueue.ts);
 * - `interrupt`: the running turn is canceled ("interrupted by the session's next message") and
 *   the message starts the next one;
 * - `steer`: the running Agents get the message as a user message before their next model request
 *   (a workflow update whose id is the request's message id, so a retried request is applied once).
 */
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { AppError } from '../../../src/errors';
import { MESSAGE_POLICIES, type MessagePolicy } from '../../../src/io/store/messageQueueTypes';
import type { EventCursor, RunRecord } from '../../../src/io/store/contract';
import { newId } from '../../../src/io/store/time';
import { STEER_REFUSED, steerMessageUpdate } from '../../../workflows/definitions';
import type { AppDeps } from '../../deps';
import { endRunForNextTurn } from './supersede';

export { MESSAGE_POLICIES, type MessagePolicy };

export const INTERRUPTED_REASON = "interrupted by the session's next message";

/** What a request says about a message sent while the session runs. */
export interface MessageOptions {
  /** The request's `message_policy`; absent: the agent's. */
  policy?: MessagePolicy;
  /** The request's message id (`message_id`, else the `Idempotency-Key` header): a steer retried with it is applied once. */
  messageId?: string;
}

/** Checks a `message_policy` value; `path` names it in the error. */
export function parseMessagePolicy(value: unknown, path: string): MessagePolicy | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (MESSAGE_POLICIES as readonly string[]).includes(value)) return value as MessagePolicy;
  const message = `must be one of ${MESSAGE_POLICIES.map((p) => `"${p}"`).join(', ')}`;
  throw new AppError('BAD_REQUEST', `\`message_policy\` ${message}`, { problems: [{ path, message }] });
}

/** The message options of a request body (and its Idempotency-Key header). */
export function readMessageOptions(body: Record<string, unknown>, headers: Record<string, unknown>): MessageOptions {
  const policy = parseMessagePolicy(body.message_policy, '$.body.message_policy');
  const id = body.message_id ?? undefined;
  if (id !== undefined && (typeof id !== 'string' || id.length === 0 || id.length > 200))
    throw new AppError('BAD_REQUEST', '`message_id` must be a non-empty string of at most 200 characters', {
      problems: [{ path: '$.body.message_id', message: 'must be a non-empty string of at most 200 characters' }],
    });
  const header = headers['idempotency-key'];
  const key = typeof header === 'string' && header.length > 0 && header.length <= 200 ? header : undefined;
  const messageId = (id as string | undefined) ?? key;
  return { ...(policy ? { policy } : {}), ...(messageId ? { messageId } : {}) };
}

/** The policy a message to a running session follows: the request's, else the agent's, else reject. */
export async function messagePolicyFor(deps: AppDeps, tenantId: string, canvasId: string, requested: MessagePolicy | undefined): Promise<MessagePolicy> {
  return requested ?? (await deps.store.messageQueue.policyOf(tenantId, canvasId)) ?? 'reject';
}

/** Interrupts the session's running turn: canceled with {@link INTERRUPTED_REASON}, the session let go. */
export async function interruptRun(deps: AppDeps, sessionId: string, run: RunRecord): Promise<void> {
  await endRunForNextTurn(deps, run, sessionId, INTERRUPTED_REASON);
}

/** A message steered into a running turn: the run, where its events stood, and the Agents that take it. */
export interface SteeredMessage {
  runId: string;
  steerId: string;
  componentIds: string[];
  /** Just before the run's last event when the message was taken: a streamed reply follows the run from there. */
  after: EventCursor | null;
}

/** Steers `text` into the run's Agents; refused with MESSAGE_NOT_STEERED when none can take it now. */
export async function steerMessage(deps: AppDeps, run: RunRecord, text: string, messageId: string | undefined): Promise<SteeredMessage> {
  const steerId = messageId ?? newId();
  const last = await deps.store.runs.lastEvent(run.id);
  const handle = deps.temporal.workflow.getHandle(run.workflow_id);
  try {
    // The update id is the message id: Temporal answers a repeated one with the first outcome.
    const accepted = await handle.executeUpdate(steerMessageUpdate, { args: [{ id: steerId, text }], updateId: `steer-${steerId}` });
    return { runId: run.id, steerId, componentIds: accepted.component_ids, after: last ? { seq: last.seq - 1, sub: 2_147_483_647 } : null };
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === STEER_REFUSED)
      throw new AppError('MESSAGE_NOT_STEERED', `The message was not steered into run ${run.id}: ${cause.message}`, { task_id: run.id });
    if (err instanceof WorkflowNotFoundError)
      throw new AppError('MESSAGE_NOT_STEERED', `The message was not steered: run ${run.id} has ended`, { task_id: run.id });
    throw err;
  }
}
