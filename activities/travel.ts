/**
 * Time travel's activity: a fork's workflow loads the snapshot it starts from (its input names
 * it), so the state crosses history once, as a continue-as-new checkpoint does, and no snapshot
 * of the source run ever travels through the source's history (docs/ARCHITECTURE.md, "Time travel").
 */
import { ApplicationFailure } from '@temporalio/common';
import type { CallResult } from '../src/core/engine';
import type { RunState } from '../src/core/engine/state';
import type { Store } from '../src/io/store/contract';

export interface LoadForkSnapshotInput {
  sourceRunId: string;
  position: number;
}

export interface FrozenCallInput {
  sourceRunId: string;
  componentId: string;
  /** The call's order among the component's tool calls in this run. */
  index: number;
  callId: string;
  activity: string;
}

/** The failure type of a replayed tool call the source run never made. */
export const REPLAY_NO_SUCH_CALL = 'REPLAY_NO_SUCH_CALL';

export function createTravelActivities(deps: { store: Store }) {
  return {
    /** A frozen replay's tool call: what the source's call of the same component and order returned. */
    async frozenCall(input: FrozenCallInput): Promise<CallResult> {
      const e = await deps.store.travel.journalEntry(input.sourceRunId, input.componentId, input.index);
      if (!e || e.activity !== input.activity)
        return {
          callId: input.callId,
          ok: false,
          code: REPLAY_NO_SUCH_CALL,
          error: `replay with tools frozen: the source run ${input.sourceRunId} made no ${input.activity} call #${input.index + 1} for ${input.componentId}, so there is nothing to answer it with (replay with tools "live" to make it)`,
        };
      if (e.ok) return { callId: input.callId, ok: true, value: e.result };
      return { callId: input.callId, ok: false, error: String((e.result as { error?: unknown } | null)?.error ?? 'the source call failed') };
    },

    async loadForkSnapshot(input: LoadForkSnapshotInput): Promise<RunState> {
      const state = await deps.store.travel.getSnapshot(input.sourceRunId, input.position);
      // The API checked it exists before starting the fork; snapshots are never deleted on their own.
      if (!state) throw ApplicationFailure.nonRetryable(`run ${input.sourceRunId} has no snapshot at path position ${input.position}`, 'NOT_FOUND');
      return state;
    },
  };
}
