/**
 * Repeated finished rounds: a model call served again although the activity of its round had
 * already completed (what a lost or replayed history would cost: a round paid twice). A call
 * repeated because its worker died mid-call is expected (its activity had not completed) and is
 * counted apart, as a call in flight at a kill.
 */
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { RecordedCall } from '../../test/helpers/scriptedLlm';

/** When each model-call activity of a workflow completed, in order (round 1 first). */
export async function modelRoundCompletions(client: Client, workflowId: string): Promise<number[]> {
  // A run whose workflow never started (its API died first) has no rounds; the report counts it unfinished.
  const history = await client.workflow
    .getHandle(workflowId)
    .fetchHistory()
    .catch((err: unknown) => {
      // fetchHistory answers a missing workflow with the raw gRPC NOT_FOUND (5).
      if (err instanceof WorkflowNotFoundError || (isGrpcServiceError(err) && err.code === 5)) return { events: [] };
      throw err;
    });
  const typeOf = new Map<string, string>();
  const completed: number[] = [];
  for (const e of history.events ?? []) {
    const id = String(e.eventId ?? '');
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) typeOf.set(id, scheduled.activityType?.name ?? '');
    const done = e.activityTaskCompletedEventAttributes;
    if (done && typeOf.get(String(done.scheduledEventId ?? '')) === 'llmChat') {
      const t = e.eventTime;
      completed.push(t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0);
    }
  }
  return completed;
}

export interface RoundTally {
  /** Calls that arrived after their round's activity had completed. */
  repeatedFinished: number;
  /** Calls made more than once for a round whose activity had not completed yet (in flight at a kill). */
  repeatedInFlight: number;
}

/**
 * `calls`: one run's model calls; `roundOf`: the round a call belongs to (1-based);
 * `completions`: when each round's activity completed.
 */
export function tallyRounds(calls: RecordedCall[], roundOf: (c: RecordedCall) => number, completions: number[]): RoundTally {
  const tally: RoundTally = { repeatedFinished: 0, repeatedInFlight: 0 };
  const byRound = new Map<number, RecordedCall[]>();
  for (const c of calls) byRound.set(roundOf(c), [...(byRound.get(roundOf(c)) ?? []), c]);
  for (const [round, list] of byRound) {
    const completedAt = completions[round - 1];
    const after = completedAt === undefined ? [] : list.filter((c) => c.startedAt > completedAt);
    tally.repeatedFinished += after.length;
    tally.repeatedInFlight += list.length - after.length - 1;
  }
  return tally;
}
