/**
 * "What durability saved": a model call whose result a replay takes from the workflow's history
 * instead of calling the model again (after a worker crash, a cache eviction, a long pause) is
 * reported to the worker through a sink, which the worker records in the cost ledger once per call
 * (activities/reuseSink.ts). A sink, because replaying code may emit no command: sinks run in the
 * worker, outside the workflow's history, and this one is called during replay on purpose.
 */
import { proxySinks, workflowInfo, type Sinks } from '@temporalio/workflow';
import type { LlmChatResult } from '../src/core/components/callContracts';

/** A finished model call a replay reused. */
export interface ReusedCall {
  runId: string;
  /** The engine's call id, unique within the run: the same call reused by many replays counts once. */
  callId: string;
  nodeId: string;
  model: string;
  /** The provider's counts recorded with the result (0 when it reported none). */
  promptTokens: number;
  completionTokens: number;
}

export interface LedgerSinks extends Sinks {
  ledger: { reused(call: ReusedCall): void };
}

const sinks = proxySinks<LedgerSinks>();

/** Reports a model call's result when it came from history (the workflow is replaying), else nothing. */
export function reportIfReused(runId: string, callId: string, nodeId: string, result: unknown): void {
  if (!workflowInfo().unsafe.isReplaying) return;
  const r = result as Partial<LlmChatResult> | null;
  const reported = r?.usage && r.usage.estimated !== true;
  sinks.ledger.reused({
    runId,
    callId,
    nodeId,
    model: typeof r?.model === 'string' ? r.model : '',
    promptTokens: reported ? r.usage!.prompt_tokens : 0,
    completionTokens: reported ? r.usage!.completion_tokens : 0,
  });
}
