/**
 * The worker's schedule activities (workflows/scheduledRun.ts): a scheduled run is started through
 * the API's own start path (api/services/sessions.ts), so its session, run row and first event are
 * those of a run started over HTTP. Composed here because activities may not import the API layer.
 *
 * The start is made once (workflows/scheduledRun.ts gives it one attempt): a retry after a start
 * whose answer was lost would start a second run. A start that fails fails that one action, which
 * the schedule's recent actions show; the next action starts afresh.
 */
import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { startableCanvas } from '../../api/services/canvasVersions';
import { startRecordedRun, type LaunchDeps } from '../../api/services/runLauncher';
import { beginTurn, beginTurnInNewSession } from '../../api/services/sessions';
import { AppError } from '../../src/errors';
import type { ScheduleActivities, ScheduledRunInput } from '../../workflows/scheduledRun';

/** The user a scheduled run acts as: the run list shows it as `started_by: {kind: "schedule", id}`. */
export function scheduleUser(scheduleId: string): string {
  return `schedule:${scheduleId}`;
}

function failure(err: unknown): unknown {
  return err instanceof AppError ? ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: !err.retryable }) : err;
}

export function scheduleActivities(deps: LaunchDeps): ScheduleActivities {
  return {
    async startScheduledRun(input: ScheduledRunInput, actionId: string) {
      try {
        const canvas = await deps.store.canvases.get(input.tenantId, input.agentId);
        if (!canvas) throw new AppError('NOT_FOUND', `The agent ${input.agentId} of schedule ${input.scheduleId} no longer exists`);
        const turn = {
          tenantId: input.tenantId,
          canvas,
          query: input.query,
          inputs: input.inputs,
          files: [],
          userId: scheduleUser(input.scheduleId),
        };
        const startable = startableCanvas(canvas, turn, deps.limits);
        if (input.sessionId) {
          const session = await deps.store.sessions.get(input.tenantId, canvas.id, input.sessionId);
          if (!session) throw new AppError('NOT_FOUND', `The session ${input.sessionId} of schedule ${input.scheduleId} no longer exists`);
          const run = await startRecordedRun(deps, (await beginTurn(deps, { ...turn, ...startable, session })).start);
          return { runId: run.runId, sessionId: session.id, workflowId: run.workflowId };
        }
        const name = `${input.scheduleId} ${createHash('sha1').update(actionId).digest('hex').slice(0, 8)}`;
        const begun = await beginTurnInNewSession(deps, { ...turn, ...startable, name });
        const run = await startRecordedRun(deps, begun.start);
        return { runId: run.runId, sessionId: begun.session.id, workflowId: run.workflowId };
      } catch (err) {
        throw failure(err);
      }
    },
    async awaitRunEnd(runId: string) {
      const ctx = Context.current();
      for (;;) {
        const run = await deps.store.runs.getById(runId);
        if (!run) return 'missing';
        if (run.status !== 'running' && run.status !== 'paused') return run.status;
        ctx.heartbeat();
        await ctx.sleep(1000);
      }
    },
  };
}
