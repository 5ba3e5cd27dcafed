/**
 * A replay with tools frozen (docs/ARCHITECTURE.md, "Time travel"): every tool call (a tool node,
 * an Agent's tool, retrieval, HTTP, MCP, files, browsing) is answered with what the source run's
 * call of the same component and order returned, from the journal the API took from the source's
 * history; no tool is reached. Model calls go on as usual (to the mapped models). A call the
 * source never made fails the call with a clear error.
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import { CALL_TRAITS } from '../src/core/components/callContracts';
import type { CallResult, EngineCall } from '../src/core/engine';

/** The patch under which a run whose input names a replay answers its tool calls from the journal (only replays ask). */
export const TIME_TRAVEL_REPLAY_PATCH = 'time-travel-replay';

const travel = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Whether `call` is a tool call a frozen replay answers from the journal (not a model call, a child run or speech). */
export function isToolCall(call: EngineCall): boolean {
  const traits = CALL_TRAITS[call.call.activity];
  return traits.carrier === 'activity' && traits.usage === 'none' && call.call.activity !== 'speak';
}

/** Answers the tool calls of a replay from the source's journal; null for a call that goes on as usual. */
export function frozenTools(sourceRunId: string): (call: EngineCall) => Promise<CallResult> | null {
  const made = new Map<string, number>();
  return (call) => {
    if (!isToolCall(call)) return null;
    const index = made.get(call.componentId) ?? 0;
    made.set(call.componentId, index + 1);
    return travel.frozenCall({ sourceRunId, componentId: call.componentId, index, callId: call.callId, activity: call.call.activity });
  };
}
