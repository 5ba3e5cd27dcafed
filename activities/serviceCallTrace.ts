/**
 * Writes the traces of the embedding and rerank requests a tool makes for a run's node (issue
 * 36): the same `model_call_traces` store as chat attempts, with their kind. From the activity,
 * never through workflow history; a trace that cannot be written is logged and the call goes on.
 * They are not in the cost ledger (`model_calls`): their cost is 0 and unpriced.
 */
import { tracedServiceRequest, tracedServiceResponse } from '../src/io/llm/callTrace';
import type { ServiceCall, ServiceCallSink } from '../src/io/knowledge/serviceCalls';
import type { TraceDeps } from './callTraceRecord';
import { errorText } from './callTraceRecord';

/** Whose requests they are: the run's node, and the activity attempt that made them. */
export interface ServiceCallOwner {
  tenantId: string;
  runId: string;
  nodeId: string;
  /** The Temporal workflow execution's run id: activity ids repeat across a workflow's runs (continue-as-new, reset). */
  workflowRunId: string;
  activityId: string;
  attempt: number;
}

/**
 * A sink recording each request as one attempt. Its id counts the requests of each kind within the
 * activity attempt (they come in the same order every attempt), so a record made again changes
 * nothing; its call id is the activity's with the kind, so a retried attempt's embedding and the
 * failed one before it are attempts of one call.
 */
export function serviceCallTracer(deps: TraceDeps, owner: ServiceCallOwner): ServiceCallSink {
  const counts = new Map<ServiceCall['kind'], number>();
  return async (call) => {
    const n = (counts.get(call.kind) ?? 0) + 1;
    counts.set(call.kind, n);
    const callId = `${owner.activityId}:${call.kind}${n > 1 ? `:${n}` : ''}`;
    const id = `${owner.workflowRunId}:${callId}:${owner.attempt}`;
    try {
      await deps.store.callTraces.record({
        id,
        kind: call.kind,
        tenantId: owner.tenantId,
        runId: owner.runId,
        nodeId: owner.nodeId,
        activityId: callId,
        model: call.model,
        attempt: owner.attempt,
        outcome: call.error === null ? 'ok' : 'failed',
        request: tracedServiceRequest(call, deps.redact),
        response: call.summary === null ? null : tracedServiceResponse(call.summary),
        error: call.error === null ? null : deps.redact(errorText(call.error)),
        startedAt: call.startedAt,
        capacityWaitMs: 0,
        firstTokenMs: null,
        durationMs: call.durationMs,
        promptTokens: call.promptTokens ?? 0,
        completionTokens: 0,
        usageReported: call.promptTokens !== null,
        cost: 0,
        priced: false,
      });
    } catch (err) {
      deps.log.warn(`the trace of a ${call.kind} request could not be recorded`, { id, error: err instanceof Error ? err.message : String(err) });
    }
  };
}
