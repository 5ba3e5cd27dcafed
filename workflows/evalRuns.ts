/**
 * An eval (time travel): finished runs replayed with other models, tools frozen, as child canvas
 * runs at most `concurrency` at a time, then one activity compares each replay with its source
 * (answers, tool choices, tokens) and asks the judge model, if any. Durable: a worker lost midway
 * resumes with the children already done.
 */
import { ChildWorkflowCancellationType, executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import type { EvalReport } from '../activities/travel';
import type { CanvasRunWorkflow } from './children';
import type { CanvasRunInput } from './definitions';

export interface EvalRunsInput {
  evalId: string;
  tenantId: string;
  /** Each replay's start, prepared (rows, journal) by the API. */
  replays: { sourceRunId: string; workflowId: string; input: CanvasRunInput }[];
  concurrency: number;
  /** The judge model's llm_id, or null for none. */
  judge: string | null;
}

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

export async function evalRuns(input: EvalRunsInput): Promise<EvalReport> {
  let next = 0;
  const lane = async () => {
    while (next < input.replays.length) {
      const r = input.replays[next++]!;
      // A replay that fails is a result too: the report shows it.
      await executeChild<CanvasRunWorkflow>('canvasRun', {
        workflowId: r.workflowId,
        args: [r.input],
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        typedSearchAttributes: workflowInfo().typedSearchAttributes,
      }).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, input.replays.length)) }, lane));
  return acts.summarizeEval({ pairs: input.replays.map((r) => ({ source: r.sourceRunId, replay: r.input.runId })), judge: input.judge });
}
