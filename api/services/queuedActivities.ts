/**
 * Which of a run's activities wait in the task queue: scheduled, not yet taken by a worker (every
 * worker's slots are full, WORKER_MAX_ACTIVITIES; no worker polls; or a retry waits for one).
 * The run view shows their nodes as queued rather than running (issue 38: a model stream that
 * waits behind a full worker looked like one that runs).
 *
 * Temporal's describe lists pending activities by id and state, not by node; the node is named in
 * the summary each call is scheduled with (`<component id>: …`, src/core/engine/step.ts), read
 * from the scheduling events at the history's end. Only asked when something is queued.
 */
import { defaultPayloadConverter, type Client } from '@temporalio/client';

export interface QueuedActivity {
  /** The node the call is for; null for the run's own bookkeeping calls. */
  component_id: string | null;
  activity_type: string;
  attempt: number;
  /** ms since epoch the current attempt was scheduled at. */
  since: number;
  queued_ms: number;
  /**
   * `task_queue`: not yet taken by a worker; `provider_capacity`: taken, but the model call waits
   * for room under PROVIDER_LIMITS (its last heartbeat says so, activities/providerCapacity.ts).
   */
  waiting_for: 'task_queue' | 'provider_capacity';
}

/** PendingActivityState.SCHEDULED: not yet started by a worker. */
const SCHEDULED = 1;
/** PendingActivityState.STARTED: a worker runs it. */
const STARTED = 2;

type Pending = { state?: number | null; heartbeatDetails?: { payloads?: Parameters<typeof defaultPayloadConverter.fromPayload>[0][] | null } | null };

/** Whether a started call's last heartbeat says it waits for provider capacity (activities/providerCapacity.ts). */
function waitsForCapacity(p: Pending): boolean {
  if (p.state !== STARTED) return false;
  const first = p.heartbeatDetails?.payloads?.[0];
  if (!first) return false;
  try {
    const details = defaultPayloadConverter.fromPayload<unknown>(first);
    return typeof details === 'object' && details !== null && (details as { waiting?: unknown }).waiting === 'provider capacity';
  } catch {
    return false;
  }
}
/** The scheduling events looked for are recent: this many history events back at most. */
const HISTORY_PAGES = 3;
const PAGE_SIZE = 200;
const DESCRIBE_MS = 3_000;

function millis(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number | null {
  if (!t || t.seconds == null) return null;
  return Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/** The node a call summary names: the longest of `nodeIds` it starts with. */
export function nodeOfSummary(summary: string, nodeIds: readonly string[]): string | null {
  const matches = nodeIds.filter((id) => summary.startsWith(`${id}: `));
  return matches.sort((a, b) => b.length - a.length)[0] ?? null;
}

/** Summaries of the activities `ids`, from the history's newest events backwards. */
async function summariesOf(client: Client, workflowId: string, ids: Set<string>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let nextPageToken: Uint8Array | undefined;
  for (let page = 0; page < HISTORY_PAGES && found.size < ids.size; page++) {
    const res = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId },
      maximumPageSize: PAGE_SIZE,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const e of res.history?.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (!scheduled?.activityId || !ids.has(scheduled.activityId)) continue;
      const payload = e.userMetadata?.summary;
      const summary = payload ? defaultPayloadConverter.fromPayload<unknown>(payload) : null;
      if (typeof summary === 'string') found.set(scheduled.activityId, summary);
    }
    if (!res.nextPageToken?.length) break;
    nextPageToken = res.nextPageToken;
  }
  return found;
}

/** The run's queued activities now; empty when none is, or when Temporal could not say in time. */
export async function queuedActivities(client: Client, workflowId: string, nodeIds: readonly string[], now: number): Promise<QueuedActivity[]> {
  try {
    return await client.connection.withDeadline(now + DESCRIBE_MS, async () => {
      const described = await client.workflow.getHandle(workflowId).describe();
      const waiting = (described.raw.pendingActivities ?? []).filter((p) => (p.state === SCHEDULED || waitsForCapacity(p)) && p.activityId);
      if (waiting.length === 0) return [];
      const summaries = await summariesOf(client, workflowId, new Set(waiting.map((p) => p.activityId!)));
      return waiting.map((p) => {
        const capacity = p.state !== SCHEDULED;
        // A call waiting for capacity has waited since its attempt started (it took a worker slot then).
        const since = (capacity ? millis(p.lastStartedTime) : millis(p.scheduledTime)) ?? now;
        const summary = summaries.get(p.activityId!);
        return {
          component_id: summary ? nodeOfSummary(summary, nodeIds) : null,
          activity_type: p.activityType?.name ?? '',
          attempt: p.attempt ?? 1,
          since,
          queued_ms: Math.max(0, now - since),
          waiting_for: capacity ? ('provider_capacity' as const) : ('task_queue' as const),
        };
      });
    });
  } catch {
    // Temporal did not answer in time: the view shows the nodes as the workflow reports them.
    return [];
  }
}
