/**
 * The action of an agent's schedule (a Temporal Schedule, api/plugins/schedules.ts): start one
 * normal run of the agent, as the API starts one (its session row, run row and first event, then
 * its canvasRun workflow), and wait for that run to end, so that the schedule's overlap policy
 * (skip, buffer, allow) sees a scheduled run as running until its run has ended.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';

/** What a schedule starts each time (the schedule's action arguments). */
export interface ScheduledRunInput {
  tenantId: string;
  agentId: string;
  scheduleId: string;
  query: string;
  inputs: Record<string, unknown> | null;
  /** Every run in this one session (its next turn); null: each run in a session of its own. */
  sessionId: string | null;
}

export interface ScheduledRunStarted {
  runId: string;
  sessionId: string;
  workflowId: string;
}

/** The activities the worker's composition root registers for schedules (server/boot/scheduledRuns.ts). */
export interface ScheduleActivities {
  /** Records and starts the run (the action id names its session). */
  startScheduledRun(input: ScheduledRunInput, actionId: string): Promise<ScheduledRunStarted>;
  /** Resolves once the run ended (heartbeating while it waits); its status. */
  awaitRunEnd(runId: string): Promise<string>;
}

// One attempt: a retry after a start whose answer was lost would start a second run.
const starts = proxyActivities<ScheduleActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } });

const waits = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: '30 days',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function scheduledRun(input: ScheduledRunInput): Promise<ScheduledRunStarted & { status: string }> {
  // The schedule's workflow id for this action is unique per action (Temporal appends the time).
  const started = await starts.startScheduledRun(input, workflowInfo().workflowId);
  const status = await waits.awaitRunEnd(started.runId);
  return { ...started, status };
}
