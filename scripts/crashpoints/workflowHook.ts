/**
 * Bundled into the workflow code by the crash-point harness only (hook.ts): at the end of every
 * activation it reports the commands the worker is about to send, through a sink the worker
 * calls before it completes the workflow task. So "the worker dies in the task that schedules
 * the second model call, before the server hears of it" is a point the harness can arm.
 * Sinks are not called while replaying: a point is passed once per execution of its task.
 */
import { proxySinks, type ConcludeActivationInput, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface CrashpointSinks extends Sinks {
  crashpoints: { taskEnding(commands: string[]): void };
}

const { crashpoints } = proxySinks<CrashpointSinks>();

/** The name a command has in a point id, or null for commands no point is about. */
function commandName(c: ConcludeActivationInput['commands'][number]): string | null {
  if (c.scheduleActivity) return `schedule:${c.scheduleActivity.activityType}`;
  if (c.scheduleLocalActivity) return `schedule-local:${c.scheduleLocalActivity.activityType}`;
  if (c.startChildWorkflowExecution) return `child:${c.startChildWorkflowExecution.workflowType}`;
  if (c.continueAsNewWorkflowExecution) return 'continue-as-new';
  if (c.updateResponse?.accepted) return 'update-accepted';
  if (c.completeWorkflowExecution) return 'complete';
  return null;
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      concludeActivation(input, next) {
        const out = next(input);
        const names = out.commands.map(commandName).filter((n): n is string => n !== null);
        if (names.length > 0) crashpoints.taskEnding(names);
        return out;
      },
    },
  ],
});
