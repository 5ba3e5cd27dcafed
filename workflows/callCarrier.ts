/**
 * Carries out one engine call, as its traits say (src/core/components/callContracts.ts): an activity of the
 * call's name, or a child run, with the retry policy and timeouts its component asked for. Failures become results for the engine (exception handling is its business);
 * only cancellation propagates.
 */
import {
  type ActivityOptions,
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
import type { Activities } from '../activities/activityTypes';
import type { CallOptions } from '../activities/callRecord';
import type { AppendRunEventsInput } from '../activities/runs';
import type { CallResult, EngineCall } from '../src/core/engine';
import {
  CALL_TRAITS,
  type ActivityCallName,
  type CallMap,
  type CallName,
  type InvokeCanvasRequest,
  type InvokeCanvasResult,
  type SubAgentRequest,
  type SubAgentResult,
} from '../src/core/components/callContracts';
import type { CanvasRunWorkflow, SubAgentRunWorkflow } from './children';
import { canvasRunInput, type RunSettings } from './definitions';
import { reportIfReused } from './ledgerSinks';

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

/** Carries out one call of the run loop (src/core/engine/loop.ts bounds how many run at once), with its step's events when it carries them. */
export async function carryCall(call: EngineCall, settings: RunSettings, record?: AppendRunEventsInput, runId?: string): Promise<CallResult> {
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
    if (CALL_TRAITS[c.activity].carrier === 'activity') {
      // Every activity call takes (request, {maxRetries}); the traits table says which calls are activities.
      const act = acts[c.activity as ActivityCallName] as unknown as {
        executeWithOptions(o: ActivityOptions, args: [unknown, CallOptions]): Promise<unknown>;
      };
      // The step's events, when it left them to this call, are written by the activity first.
      // A model call says whose it is (run and node): the cost ledger records it and budgets gate it
      // (activities/meteredLlm.ts). A tool call says the same so that its embedding and rerank
      // requests are traced as its node's (activities/tools.ts). Arguments only, no new command:
      // replay matches an activity by its type and id, not its input, so histories replay as
      // before and no patched() branch is needed; an activity from an older history gets no
      // `trace` and traces nothing.
      const who = runId ? { runId, nodeId: call.componentId } : null;
      const owner = who && CALL_TRAITS[c.activity].usage === 'model' ? { ledger: who } : who && c.activity === 'toolInvoke' ? { trace: who } : {};
      value = await act.executeWithOptions(options, [c.request, { maxRetries: p.maxRetries, ...(record ? { record } : {}), ...owner }]);
      // A result taken from history on replay is a call durability saved (workflows/ledgerSinks.ts).
      if (runId && 'ledger' in owner) reportIfReused(runId, call.callId, call.componentId, value);
    } else if (CALL_TRAITS[c.activity].carrier === 'engine') {
      // Carried by the run loop itself (src/core/engine/parallelItems.ts); never handed to this function.
      return { callId: call.callId, ok: false, error: `${c.activity} is carried by the run loop` };
    } else {
      const r = await CHILD_RUNS[c.activity as ChildCallName](c.request as never, call, settings);
      if ('error' in r) return { callId: call.callId, ok: false, error: r.error };
      value = r.value;
    }
    return { callId: call.callId, ok: true, value };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { callId: call.callId, ok: false, ...failureMessage(err) };
  }
}

/** A sub-agent is a run of its own: a child workflow, visible as such in the Temporal UI. */
async function subAgent(request: SubAgentRequest, call: EngineCall, settings: RunSettings): Promise<{ value: SubAgentResult }> {
  const value = await executeChild<SubAgentRunWorkflow>('subAgentRun', {
    workflowId: `${workflowInfo().workflowId}-${call.callId.replace(/[^A-Za-z0-9_-]+/g, '_')}`,
    args: [{ request, settings }],
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    staticSummary: call.summary,
    // Operators find a sub-agent by the same tenant/canvas filters as its parent.
    typedSearchAttributes: workflowInfo().typedSearchAttributes,
  });
  return { value };
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
  const input = canvasRunInput({
    runId,
    tenantId: prepared.tenantId,
    canvas: { id: request.canvasId, title: prepared.title, dsl: prepared.dsl },
    query: request.query,
    inputs: Object.keys(request.inputs).length > 0 ? request.inputs : null,
    settings: { ...settings, nestingDepth: depth },
    ...(request.nest ? { nest: { ...request.nest, componentId: request.componentId } } : {}),
  });
  const result = await executeChild<CanvasRunWorkflow>('canvasRun', {
    workflowId: prepared.workflowId,
    args: [input],
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    staticSummary: call.summary,
    memo: { title: prepared.title },
    typedSearchAttributes: workflowInfo().typedSearchAttributes,
  });
  if (result.status !== 'finished')
    return { error: `the agent ${request.canvasId} ${result.status}${result.error ? `: ${result.error}` : ''} (task_id ${runId})` };
  return {
    value: {
      text: result.content,
      outputs: { content: result.content, outputs: result.outputs, task_id: runId },
      elapsedMs: Date.now() - started,
      taskId: runId,
      usage: result.usage,
    },
  };
}

type ChildCallName = { [K in CallName]: (typeof CALL_TRAITS)[K]['carrier'] extends 'child' ? K : never }[CallName];

/** The calls carried out as child runs, by call name. */
const CHILD_RUNS: {
  [K in ChildCallName]: (
    request: CallMap[K]['request'],
    call: EngineCall,
    settings: RunSettings,
  ) => Promise<{ value: CallMap[K]['result'] } | { error: string }>;
} = {
  subAgent,
  invokeCanvas,
};
