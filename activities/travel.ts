/**
 * Time travel's activity: a fork's workflow loads the snapshot it starts from (its input names
 * it), so the state crosses history once, as a continue-as-new checkpoint does, and no snapshot
 * of the source run ever travels through the source's history (docs/ARCHITECTURE.md, "Time travel").
 */
import { ApplicationFailure } from '@temporalio/common';
import type { RunState } from '../src/core/engine/state';
import type { Store } from '../src/io/store/contract';

export interface LoadForkSnapshotInput {
  sourceRunId: string;
  position: number;
}

export function createTravelActivities(deps: { store: Store }) {
  return {
    async loadForkSnapshot(input: LoadForkSnapshotInput): Promise<RunState> {
      const state = await deps.store.travel.getSnapshot(input.sourceRunId, input.position);
      // The API checked it exists before starting the fork; snapshots are never deleted on their own.
      if (!state) throw ApplicationFailure.nonRetryable(`run ${input.sourceRunId} has no snapshot at path position ${input.position}`, 'NOT_FOUND');
      return state;
    },
  };
}
