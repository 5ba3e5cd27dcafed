/**
 * Agent schedules on Temporal Schedules: each action starts `scheduledRun` (workflows/scheduledRun.ts),
 * which starts one normal run of the agent and waits for it, so Temporal's overlap policy applies
 * to runs. The schedule's id is ours (32 hex); its memo names its tenant and agent, and every route
 * checks them, so a tenant never reaches another's schedule (it is NOT_FOUND, as a missing one).
 * What the schedule was asked for (cron or interval, time zone) travels in its action's input, so
 * the view shows it as given rather than as Temporal's calendar form.
 */
import { isGrpcServiceError, ScheduleNotFoundError, type Client, type ScheduleDescription, type ScheduleOverlapPolicy } from '@temporalio/client';
import { AppError } from '../../src/errors';
import type { ScheduledRunInput } from '../../workflows/scheduledRun';
import { newId } from '../../src/io/store/time';

export const OVERLAP_POLICIES = { skip: 'SKIP', buffer_one: 'BUFFER_ONE', buffer_all: 'BUFFER_ALL', allow_all: 'ALLOW_ALL' } as const;
export type Overlap = keyof typeof OVERLAP_POLICIES;

/** A schedule as the API is asked for it. */
export interface ScheduleRequest {
  cron?: string[];
  interval_seconds?: number;
  offset_seconds?: number;
  time_zone?: string;
  query: string;
  inputs: Record<string, unknown> | null;
  session_id: string | null;
  overlap: Overlap;
  paused: boolean;
  note?: string;
}

type Timing = Pick<ScheduleRequest, 'cron' | 'interval_seconds' | 'offset_seconds' | 'time_zone'>;

/** The action input with what the schedule was asked for (the workflow reads the rest). */
type ActionInput = ScheduledRunInput & { timing: Timing; overlap: Overlap };

export interface ScheduleDeps {
  client: Client;
  taskQueue: string;
}

const MEMO_KIND = 'agent-schedule';

/** gRPC's INVALID_ARGUMENT status code (Temporal's answer to a spec it cannot use). */
const GRPC_INVALID_ARGUMENT = 3;

function specOf(t: Timing) {
  return {
    ...(t.cron ? { cronExpressions: t.cron } : {}),
    ...(t.interval_seconds ? { intervals: [{ every: t.interval_seconds * 1000, ...(t.offset_seconds ? { offset: t.offset_seconds * 1000 } : {}) }] } : {}),
    ...(t.time_zone ? { timezone: t.time_zone } : {}),
  };
}

function actionOf(deps: ScheduleDeps, id: string, input: ActionInput) {
  return { type: 'startWorkflow' as const, workflowType: 'scheduledRun', taskQueue: deps.taskQueue, workflowId: `scheduled-${id}`, args: [input] };
}

/** Temporal refusing what it was given (a cron it cannot parse): a 400 naming the schedule's fields. */
function refused(err: unknown): never {
  if (isGrpcServiceError(err) && err.code === GRPC_INVALID_ARGUMENT) {
    const message = `Temporal refused the schedule: ${err.details ?? err.message}`;
    throw new AppError('BAD_REQUEST', message, { problems: [{ path: '$.body', message }] });
  }
  throw err;
}

/** What each action of schedule `id` starts with (workflows/scheduledRun.ts), from the request. */
function actionInput(tenantId: string, agentId: string, id: string, req: ScheduleRequest): ActionInput {
  return {
    tenantId,
    agentId,
    scheduleId: id,
    query: req.query,
    inputs: req.inputs,
    sessionId: req.session_id,
    timing: { cron: req.cron, interval_seconds: req.interval_seconds, offset_seconds: req.offset_seconds, time_zone: req.time_zone },
    overlap: req.overlap,
  };
}

export async function createSchedule(deps: ScheduleDeps, tenantId: string, agentId: string, req: ScheduleRequest): Promise<string> {
  const id = newId();
  const input = actionInput(tenantId, agentId, id, req);
  await deps.client.schedule
    .create({
      scheduleId: id,
      spec: specOf(input.timing),
      action: actionOf(deps, id, input),
      policies: { overlap: OVERLAP_POLICIES[req.overlap] as ScheduleOverlapPolicy, catchupWindow: '1 minute' },
      state: { paused: req.paused, ...(req.note ? { note: req.note } : {}) },
      memo: { kind: MEMO_KIND, tenantId, agentId },
    })
    .catch(refused);
  return id;
}

/** The schedule's description when it belongs to this tenant and agent; NOT_FOUND otherwise. */
async function owned(deps: ScheduleDeps, tenantId: string, agentId: string, id: string): Promise<ScheduleDescription> {
  try {
    const d = await deps.client.schedule.getHandle(id).describe();
    const memo = d.memo as { kind?: string; tenantId?: string; agentId?: string } | undefined;
    if (memo?.kind === MEMO_KIND && memo.tenantId === tenantId && memo.agentId === agentId) return d;
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
  throw new AppError('NOT_FOUND', `No schedule ${id} of this agent`, { problems: [{ path: '$.path.schedule_id', message: 'no such schedule' }] });
}

const iso = (d: Date | undefined) => (d ? d.toISOString() : null);

export function scheduleView(id: string, d: ScheduleDescription): Record<string, unknown> {
  const input = (d.action as { args?: unknown[] }).args?.[0] as ActionInput;
  return {
    id,
    agent_id: input.agentId,
    ...input.timing,
    query: input.query,
    inputs: input.inputs,
    session_id: input.sessionId,
    overlap: input.overlap,
    paused: d.state.paused,
    note: d.state.note ?? null,
    next_action_times: d.info.nextActionTimes.map((t) => t.toISOString()),
    recent_actions: d.info.recentActions.map((a) => ({
      scheduled_at: iso(a.scheduledAt),
      taken_at: iso(a.takenAt),
      workflow_id: a.action.workflow.workflowId,
    })),
    running_actions: d.info.runningActions.length,
    actions_taken: d.info.numActionsTaken,
    actions_skipped_overlap: d.info.numActionsSkippedOverlap,
    create_time: d.info.createdAt.getTime(),
  };
}

export async function describeSchedule(deps: ScheduleDeps, tenantId: string, agentId: string, id: string): Promise<Record<string, unknown>> {
  return scheduleView(id, await owned(deps, tenantId, agentId, id));
}

/** The agent's schedules (Temporal's list is eventually consistent: a schedule created a moment ago may be missing). */
export async function listSchedules(deps: ScheduleDeps, tenantId: string, agentId: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for await (const s of deps.client.schedule.list()) {
    const memo = s.memo as { kind?: string; tenantId?: string; agentId?: string } | undefined;
    if (memo?.kind !== MEMO_KIND || memo.tenantId !== tenantId || memo.agentId !== agentId) continue;
    out.push(scheduleView(s.scheduleId, await deps.client.schedule.getHandle(s.scheduleId).describe()));
  }
  return out;
}

export async function updateSchedule(deps: ScheduleDeps, tenantId: string, agentId: string, id: string, req: ScheduleRequest): Promise<void> {
  await owned(deps, tenantId, agentId, id);
  const input = actionInput(tenantId, agentId, id, req);
  await deps.client.schedule
    .getHandle(id)
    .update((prev) => ({
      ...prev,
      spec: specOf(input.timing),
      action: actionOf(deps, id, input),
      policies: { ...prev.policies, overlap: OVERLAP_POLICIES[req.overlap] as ScheduleOverlapPolicy },
      state: { ...prev.state, paused: req.paused, ...(req.note ? { note: req.note } : {}) },
    }))
    .catch(refused);
}

export async function deleteSchedule(deps: ScheduleDeps, tenantId: string, agentId: string, id: string): Promise<void> {
  await owned(deps, tenantId, agentId, id);
  await deps.client.schedule.getHandle(id).delete();
}

export type ScheduleAction =
  | { kind: 'pause'; note?: string }
  | { kind: 'unpause'; note?: string }
  | { kind: 'trigger'; overlap?: Overlap }
  | { kind: 'backfill'; start: Date; end: Date; overlap?: Overlap };

export async function actOnSchedule(deps: ScheduleDeps, tenantId: string, agentId: string, id: string, action: ScheduleAction): Promise<void> {
  await owned(deps, tenantId, agentId, id);
  const handle = deps.client.schedule.getHandle(id);
  const policy = (o: Overlap | undefined) => (o ? (OVERLAP_POLICIES[o] as ScheduleOverlapPolicy) : undefined);
  switch (action.kind) {
    case 'pause':
      return handle.pause(action.note);
    case 'unpause':
      return handle.unpause(action.note);
    case 'trigger':
      return handle.trigger(policy(action.overlap));
    case 'backfill':
      return handle.backfill([{ start: action.start, end: action.end, ...(action.overlap ? { overlap: policy(action.overlap) } : {}) }]).catch(refused);
  }
}
