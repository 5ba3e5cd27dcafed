/**
 * A sub-agent: an Agent another Agent called as a tool, run as a child workflow so it shows in
 * the Temporal UI under its parent, with its own event log (a run whose parent is the caller's)
 * and the same durability as any run. Cancelling the parent cancels it.
 */
import { ApplicationFailure, continueAsNew, proxyActivities, setWorkflowOptions, uuid4, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import type { SubAgentResult } from '../src/core/components/callContracts';
import { compileCanvas, startRun, type StepResult } from '../src/core/engine';
import { subAgentDsl, subAgentOutcome, subAgentStart } from '../src/core/engine/subAgentCanvas';
import { describeProblems } from '../src/errors';
import type { SubAgentRunInput } from './children';
import { finalizeRun, resumedStep, runInWorkflow } from './workflowCarrier';

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export type { SubAgentRunInput };

export async function subAgentRun(input: SubAgentRunInput): Promise<SubAgentResult> {
  const { request, settings } = input;
  const runId = input.runId ?? uuid4().replace(/-/g, '');
  const startedAt = input.startedAt ?? Date.now();
  const compiled = compileCanvas(subAgentDsl(request));
  if (!compiled.ok)
    throw ApplicationFailure.nonRetryable(describeProblems(`Sub-agent ${request.componentId} is invalid`, compiled.problems), 'SUB_AGENT_FAILED');
  const canvas = compiled.canvas;
  if (!input.checkpoint) await bookkeeping.registerChildRun({ runId, parentRunId: request.parentRunId, workflowId: workflowInfo().workflowId });

  const first = input.checkpoint
    ? resumedStep(input.checkpoint)
    : startRun(canvas, subAgentStart(request, { runId, messageId: runId }, settings.toolCalling), Date.now(), { maxSteps: settings.maxSteps });
  const last: StepResult = await runInWorkflow(canvas, first, {
    runId,
    settings,
    recordedStatus: input.checkpoint ? input.checkpoint.state.status : null,
    finalize: async (step) => {
      const s = step.state;
      await finalizeRun({
        runId,
        sessionId: null,
        messageId: runId,
        result: {
          status: s.status,
          content: s.display.shownText,
          outputs: s.outputs[request.componentId] ?? null,
          usage: s.usage,
          error: s.status === 'finished' ? null : s.error,
        },
        session: null,
        events: step.events,
      });
      return step;
    },
    continueAsNew: (checkpoint) => continueAsNew<typeof subAgentRun>({ ...input, runId, startedAt, checkpoint }),
  });
  const outcome = subAgentOutcome(request, last.state, runId, Date.now() - startedAt);
  // The calling Agent shows the failure to its model as the tool's result; retrying the whole
  // sub-agent would repeat work its own activities already retried.
  if (!outcome.ok) throw ApplicationFailure.nonRetryable(outcome.error, 'SUB_AGENT_FAILED');
  return outcome.result;
}

// Pinned like its parent run (a child of a pinned run starts on the parent's version): one run, one code.
setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' } : {}), subAgentRun);
