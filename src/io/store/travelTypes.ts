/** Time travel's stored shapes (migration 13): runs' batch snapshots, tool-call journals, where forked runs came from. */
import type { SnapshotEntry } from '../../core/engine/fork';
import type { BatchSnapshot } from '../../core/engine/snapshots';
import type { RunState } from '../../core/engine/state';

/** How a run came from another one. */
export interface TravelRecord {
  run_id: string;
  tenant_id: string;
  kind: 'fork' | 'rerun' | 'replay';
  source_run_id: string;
  /** The component the run started from (null for a replay, which starts at the beginning). */
  from_component: string | null;
  /** Inside an Iteration/Loop: the item the fork restarted (migration 19); null otherwise. */
  from_item?: number | null;
  /** Components whose recorded outputs the run took instead of running them. */
  reused: string[];
  /** Calls and tokens the run did not spend (src/core/engine/fork.ts, Savings). */
  savings: Record<string, unknown>;
  create_time: number;
}

/** One tool call a run made, as its history recorded it. */
export interface JournalEntry {
  component_id: string;
  /** The call's order among its component's tool calls (0-based). */
  idx: number;
  activity: string;
  ok: boolean;
  /** The call's value, or `{error}` when it failed. */
  result: unknown;
}

export interface TravelStore {
  /** Keeps a run's tool-call journal (entries already kept are left as they are). */
  putJournal(runId: string, entries: readonly JournalEntry[]): Promise<void>;
  journalEntry(runId: string, componentId: string, idx: number): Promise<JournalEntry | null>;
  /** Keeps a run's batch snapshots; one already kept at the same position is left as it is (retries). */
  putSnapshots(runId: string, snapshots: readonly BatchSnapshot[]): Promise<void>;
  /** The run's snapshots without their states, in path order. */
  listSnapshots(runId: string): Promise<SnapshotEntry[]>;
  getSnapshot(runId: string, position: number): Promise<RunState | null>;
  /** Copies `from`'s snapshots before `position` to `to` (a fork's own upstream: it can be forked there too). */
  copySnapshots(from: string, to: string, position: number): Promise<void>;
  record(entry: TravelRecord): Promise<void>;
  /** Where the runs came from, for those that came from another run. */
  getMany(runIds: readonly string[]): Promise<Map<string, TravelRecord>>;
}
