/**
 * Carries out the engine's calls as activities: at most `maxParallel` at once, each with the
 * retry policy and timeouts its component asked for, in a cancellation scope the cancel signal
 * can cut short. Failures become results for the engine (exception handling is its business);
 * only cancellation propagates.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowCancellationType,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  proxyActivities,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { CallResult, EngineCall } from '../src/engine';
import type { InvokeCanvasRequest, InvokeCanvasResult } from '../src/components/calls';
import type { CanvasRunWorkflow, SubAgentRunWorkflow } from './children';
import type { CanvasRunInput, RunSettings } from './definitions';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

function failureMessage(err: unknown): { error: string; code?: string } {
  if ((err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) && err.cause) {
    const cause = err.cause;
    return { error: cause.message || err.message, ...(cause instanceof ApplicationFailure && cause.type ? { code: cause.type } : {}) };
  }
  return { error: err instanceof Error ? err.message : String(err) };
}

async function execute(call: EngineCall, settings: RunSettings): Promise<CallResult> {
  const p = call.policy;
  // A component's own `timeout` is its time budget (RAGFlow's per-invocation timeout): each attempt
  // gets it, and all attempts together get it once per allowed retry, so a provider that hangs
  // ends in a component error instead of retrying on and on.
  const budget = p.timeout === null ? {} : { scheduleToCloseTimeout: `${p.timeout * (p.maxRetries + 1) + p.delayAfterError * p.maxRetries} seconds` };
  const options = {
    summary: call.summary,
    startToCloseTimeout: `${p.timeout ?? settings.componentTimeoutS} seconds`,
    ...budget,
    heartbeatTimeout: settings.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      // max_retries bounds errors the call reports (the activity stops those itself once
      // exhausted); crashes and timeouts get `infraRetries` more attempts on top.
      maximumAttempts: p.maxRetries + 1 + settings.infraRetries,
      initialInterval: Math.max(1, Math.round(p.delayAfterError * 1000)),
      backoffCoefficient: 1,
    },
  };
  try {
    const c = call.call;
    let value: unknown;
    switch (c.activity) {
      case 'llmChat':
        value = await acts.llmChat.executeWithOptions(options, [c.request, { maxRetries: p.maxRetries }]);
        break;
      case 'toolInvoke':
        value = await acts.toolInvoke.executeWithOptions(options, [c.request, { maxRetries: p.maxRetries }]);
        break;
      case 'mcpCall':
        value = await acts.mcpCall.executeWithOptions(options, [c.request, { maxRetries: p.maxRetries }]);
        break;
      case 'mcpListTools':
        value = await acts.mcpListTools.executeWithOptions(options, [c.request, { maxRetries: p.maxRetries }]);
        break;
      case 'invokeCanvas': {
        const r = await invokeCanvas(c.request, call, settings);
        if ('error' in r) return { callId: call.callId, ok: false, error: r.error };
        value = r.value;
        break;
      }
      case 'subAgent':
        // A sub-agent is a run of its own: a child workflow, visible as such in the Temporal UI.
        value = await executeChild<SubAgentRunWorkflow>('subAgentRun', {
          workflowId: `${workflowInfo().workflowId}-${call.callId.replace(/[^A-Za-z0-9_-]+/g, '_')}`,
          args: [{ request: c.request, settings }],
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          staticSummary: call.summary,
          // Operators find a sub-agent by the same tenant/canvas filters as its parent.
          typedSearchAttributes: workflowInfo().typedSearchAttributes,
        });
        break;
    }
    return { callId: call.callId, ok: true, value };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { callId: call.callId, ok: false, ...failureMessage(err) };
  }
}

/** Another canvas runs nested this deep at most (a canvas that invokes itself stops here). */
const MAX_NESTING = 5;

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', nonRetryableErrorTypes: ['NOT_FOUND'] },
});

/** InvokeCanvas: the other canvas runs as a child canvasRun, its events mirrored into our slot. */
async function invokeCanvas(request: InvokeCanvasRequest, call: EngineCall, settings: RunSettings): Promise<{ value: InvokeCanvasResult } | { error: string }> {
  const depth = (settings.nestingDepth ?? 0) + 1;
  if (depth > MAX_NESTING) return { error: `agents invoke each other more than ${MAX_NESTING} deep; stopped (does a canvas invoke itself?)` };
  const started = Date.now();
  const runId = uuid4().replace(/-/g, '');
  const prepared = await bookkeeping.prepareChildCanvasRun({ parentRunId: request.parentRunId, childRunId: runId, canvasId: request.canvasId });
  const input: CanvasRunInput = {
    runId,
    messageId: runId,
    tenantId: prepared.tenantId,
    canvasId: request.canvasId,
    sessionId: null,
    title: prepared.title,
    dsl: prepared.dsl,
    query: request.query,
    inputs: Object.keys(request.inputs).length > 0 ? request.inputs : null,
    files: [],
    userId: prepared.tenantId,
    session: null,
    settings: { ...settings, nestingDepth: depth },
    ...(request.nest ? { nest: { ...request.nest, componentId: request.componentId } } : {}),
  };
  const result = await executeChild<CanvasRunWorkflow>('canvasRun', {
    workflowId: prepared.workflowId,
    args: [input],
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    staticSummary: call.summary,
    memo: { title: prepared.title },
    typedSearchAttributes: workflowInfo().typedSearchAttributes,
  });
  if (result.status !== 'finished') return { error: `the agent ${request.canvasId} ${result.status}${result.error ? `: ${result.error}` : ''} (task_id ${runId})` };
  return {
    value: { text: result.content, outputs: { content: result.content, outputs: result.outputs, task_id: runId }, elapsedMs: Date.now() - started, taskId: runId, usage: result.usage },
  };
}

/**
 * Runs calls with at most `settings.maxParallel` in flight; results keep the calls' order. On
 * cancellation every lane stops taking calls and waits for its own call to acknowledge the
 * cancel, so no activity still writes tokens when the run records that it was canceled.
 */
export async function executeCalls(calls: EngineCall[], settings: RunSettings): Promise<CallResult[]> {
  const results: CallResult[] = new Array(calls.length);
  let next = 0;
  let cancelled: unknown = null;
  const lane = async () => {
    while (next < calls.length && cancelled === null) {
      const i = next++;
      try {
        results[i] = await execute(calls[i]!, settings);
      } catch (err) {
        cancelled ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(settings.maxParallel, calls.length)) }, lane));
  if (cancelled !== null) throw cancelled;
  return results;
}
