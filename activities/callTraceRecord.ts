/**
 * Writes the trace of one model call attempt (src/io/store/callTraceTypes.ts) beside its ledger
 * row: the messages sent (redacted, folded, files by reference), parameters, timing and answer.
 * From the activity, never through workflow history; a trace that cannot be written is logged and
 * the call goes on (it was made, and maybe paid for).
 */
import type { LlmChatRequest, LlmChatResult } from '../src/core/components/callContracts';
import { tracedRequest, tracedResponse } from '../src/io/llm/callTrace';
import type { Logger } from '../src/io/log';
import type { ModelCallEntry, Store } from '../src/io/store/contract';

/** What the model-call activity tells its wrapper about the stream (activities/llm.ts). */
export interface CallProbe {
  /** ms since epoch of the first streamed token or tool call. */
  firstTokenAt?: number;
}

export interface AttemptTiming {
  /** When the call first found no room under its provider limit; null when it had room at once. */
  waitedSince: number | null;
  /** When the request was sent (after any wait). */
  sentAt: number;
  endedAt: number;
  probe: CallProbe;
}

export interface TraceDeps {
  store: Store;
  log: Logger;
  redact: (text: string) => string;
}

/** Records the attempt `entry` (the ledger's row) with what was sent and what came back or went wrong. */
export async function recordTrace(
  deps: TraceDeps,
  entry: ModelCallEntry,
  activityId: string,
  request: LlmChatRequest,
  timing: AttemptTiming,
  outcome: { result: LlmChatResult } | { error: unknown },
): Promise<void> {
  try {
    await deps.store.callTraces.record({
      id: entry.id,
      kind: 'chat',
      tenantId: entry.tenantId,
      runId: entry.runId,
      nodeId: entry.nodeId,
      activityId,
      model: entry.model,
      attempt: entry.attempt,
      outcome: entry.outcome,
      request: tracedRequest(request, deps.redact),
      response: 'result' in outcome ? tracedResponse(outcome.result, deps.redact) : null,
      error: 'error' in outcome ? deps.redact(errorText(outcome.error)) : null,
      startedAt: timing.waitedSince ?? timing.sentAt,
      capacityWaitMs: timing.waitedSince === null ? 0 : timing.sentAt - timing.waitedSince,
      firstTokenMs: timing.probe.firstTokenAt !== undefined ? timing.probe.firstTokenAt - timing.sentAt : null,
      durationMs: timing.endedAt - timing.sentAt,
      promptTokens: entry.promptTokens,
      completionTokens: entry.completionTokens,
      usageReported: entry.usageReported,
      cost: entry.cost,
      priced: entry.priced,
    });
  } catch (err) {
    deps.log.warn('the trace of a model call could not be recorded', { id: entry.id, error: err instanceof Error ? err.message : String(err) });
  }
}

/** An error as a trace shows it: its code (type) and message. */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const type = (err as { type?: unknown }).type;
    return typeof type === 'string' && type !== '' ? `${type}: ${err.message}` : err.message;
  }
  return String(err);
}
