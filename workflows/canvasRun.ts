/**
 * One canvas run as a Temporal workflow. It only drives the pure engine: record the events of a
 * step, carry out the step's calls as activities, feed the results back, until the run ends.
 * Everything the run decides is in the engine; everything it touches is in activities.
 */
import {
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import { cancelRun, compileCanvas, progressOf, rejectRun, resumeRun, sessionAfter, startRun, type StepResult } from '../src/engine';
import type { RunStatus } from '../src/engine/state';
import { describeProblems } from '../src/errors';
import { RUN_STATUS_KEY } from '../src/temporal/searchAttributes';
import { executeCalls } from './calls';
import { cancelSignal, progressQuery, type CanvasRunInput, type CanvasRunResult } from './definitions';

// Event writes are short database inserts: local activities, retried until the store answers.
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function canvasRun(input: CanvasRunInput): Promise<CanvasRunResult> {
  const compiled = compileCanvas(input.dsl);
  if (!compiled.ok) {
    const error = describeProblems('The canvas is invalid', compiled.problems);
    const result: CanvasRunResult = { status: 'failed', content: '', outputs: null, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0 }, error };
    upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: 'failed' }]);
    await bookkeeping.finalizeRun({ runId: input.runId, tenantId: input.tenantId, sessionId: input.sessionId, messageId: input.messageId, result, session: null, events: rejectRun(input, error, Date.now()) });
    return result;
  }
  const canvas = compiled.canvas;
  const settings = input.settings;
  const engineOptions = { maxSteps: settings.maxSteps };

  let cancelReason: string | null = null;
  const callScope = new CancellationScope();
  setHandler(cancelSignal, (reason?: string) => {
    if (cancelReason !== null) return; // a repeated cancel is harmless
    cancelReason = reason?.trim() || 'canceled by request';
    callScope.cancel();
  });

  let step: StepResult = startRun(
    canvas,
    { runId: input.runId, messageId: input.messageId, query: input.query, inputs: input.inputs, files: input.files, userId: input.userId, session: input.session },
    Date.now(),
    engineOptions,
  );
  setHandler(progressQuery, () => progressOf(step.state));

  let recordedStatus: RunStatus | null = null;
  const record = async (s: StepResult) => {
    const changed = s.status !== recordedStatus;
    if (s.events.length > 0 || changed) await local.appendRunEvents({ runId: input.runId, events: s.events, status: changed ? s.status : undefined });
    if (changed) upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: s.status }]);
    recordedStatus = s.status;
  };

  try {
    for (;;) {
      // The last events are written by finalize, after the session is handed back: a client
      // that sees workflow_finished can start the next turn at once.
      if (ended(step)) break;
      await record(step);
      if (step.status !== 'running' || step.calls.length === 0) break;
      if (cancelReason !== null) {
        step = cancelRun(canvas, step.state, cancelReason, Date.now());
        continue;
      }
      let results;
      try {
        results = await callScope.run(() => executeCalls(step.calls, settings));
      } catch (err) {
        if (!(isCancellation(err) && cancelReason !== null)) throw err;
        step = cancelRun(canvas, step.state, cancelReason, Date.now());
        continue;
      }
      step = cancelReason !== null ? cancelRun(canvas, step.state, cancelReason, Date.now()) : resumeRun(canvas, step.state, results, Date.now(), engineOptions);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancellation requested through Temporal (the UI, tctl): record it, then end as Canceled.
    await CancellationScope.nonCancellable(async () => {
      step = cancelRun(canvas, step.state, 'the workflow was cancelled through Temporal', Date.now());
      await finalize(input, step);
    });
    throw err;
  }
  return finalize(input, step);
}

function ended(step: StepResult): boolean {
  return step.status === 'finished' || step.status === 'failed' || step.status === 'canceled';
}

async function finalize(input: CanvasRunInput, step: StepResult): Promise<CanvasRunResult> {
  const state = step.state;
  upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: state.status }]);
  const last = state.path[state.path.length - 1];
  const result: CanvasRunResult = {
    status: state.status,
    content: state.shown,
    outputs: state.status === 'canceled' ? 'Task has been canceled' : last ? (state.outputs[last] ?? null) : null,
    usage: state.usage,
    error: state.status === 'finished' ? null : state.error,
  };
  await bookkeeping.finalizeRun({
    runId: input.runId,
    tenantId: input.tenantId,
    sessionId: input.sessionId,
    messageId: input.messageId,
    result,
    session: state.status === 'finished' ? sessionAfter(state) : null,
    events: step.events,
  });
  return result;
}
