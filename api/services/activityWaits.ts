/**
 * How long each of a run's activity calls waited in the task queue before a worker took it:
 * the scheduled and started times of its history events, the node named by the summary the call
 * was scheduled with (api/services/queuedActivities.ts). For the run's timeline; best effort
 * within a deadline and a bounded number of history pages (a very long run shows no queue waits
 * beyond them).
 */
import { defaultPayloadConverter, type Client } from '@temporalio/client';
import { nodeOfSummary } from './queuedActivities';
import type { ActivityWait } from './runTimeline';

const MAX_PAGES = 10;
const PAGE_SIZE = 500;
const DEADLINE_MS = 5_000;

function millis(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number | null {
  if (!t || t.seconds == null) return null;
  return Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

export async function activityWaits(client: Client, workflowId: string, nodeIds: readonly string[]): Promise<ActivityWait[]> {
  try {
    return await client.connection.withDeadline(Date.now() + DEADLINE_MS, async () => {
      const scheduled = new Map<string, { node: string; time: number }>();
      const waits: ActivityWait[] = [];
      let nextPageToken: Uint8Array | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId },
          maximumPageSize: PAGE_SIZE,
          ...(nextPageToken ? { nextPageToken } : {}),
        });
        for (const e of res.history?.events ?? []) {
          const time = millis(e.eventTime);
          if (time === null) continue;
          const s = e.activityTaskScheduledEventAttributes;
          if (s) {
            const payload = e.userMetadata?.summary;
            const summary = payload ? defaultPayloadConverter.fromPayload<unknown>(payload) : null;
            const node = typeof summary === 'string' ? nodeOfSummary(summary, nodeIds) : null;
            if (node) scheduled.set(String(e.eventId), { node, time });
            continue;
          }
          const started = e.activityTaskStartedEventAttributes;
          const of = started ? scheduled.get(String(started.scheduledEventId)) : undefined;
          // A retried activity's started event is the last attempt's: its wait is from the retry's schedule, unknown here; only first attempts count.
          if (started && of && (started.attempt ?? 1) === 1) waits.push({ node_id: of.node, scheduled: of.time, started: time, attempt: 1 });
        }
        if (!res.nextPageToken?.length) break;
        nextPageToken = res.nextPageToken;
      }
      return waits;
    });
  } catch {
    // Temporal could not say in time (or the history is gone): the timeline shows no queue waits.
    return [];
  }
}
