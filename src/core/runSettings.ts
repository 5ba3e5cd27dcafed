/** Deployment settings a run carries, so it behaves the same after a worker restart. */
export interface RunSettings {
  /** Calls running at once (RAGFlow's batch bound, default 5). */
  maxParallel: number;
  /**
   * Heartbeat timeout of long activities, ms: how soon a killed worker's call is retried elsewhere,
   * and the longest Temporal outage a call in flight survives without being made again (the server
   * counts an outage as silence). A worker shutting down fails its calls at once, whatever this is.
   */
  heartbeatTimeoutMs: number;
  /** Default per-attempt timeout of a component call, seconds (RAGFlow's COMPONENT_EXEC_TIMEOUT). */
  componentTimeoutS: number;
  /** Extra attempts for crashes and timeouts, on top of the component's max_retries. */
  infraRetries: number;
  /** Runaway guard: component executions per run. */
  maxSteps: number;
  /** Which model factories call tools natively (an Agent's `auto` strategy); absent = all do. */
  toolCalling?: ToolCallingTable;
  /**
   * Continue-as-new once the history has this many events, or sooner when Temporal suggests it
   * (its history limit is 51,200 events / 50 MB; the server suggests a hand-over from ~4 MB).
   */
  continueAsNewAfterEvents: number;
  /** Seconds a run waits at a UserFillUp without a `timeout` of its own; null: as long as it takes. */
  pauseTimeoutS?: number | null;
  /** Keep batch snapshots for time travel (RUN_SNAPSHOTS); false: the run cannot be forked. Absent: kept. */
  snapshots?: boolean;
  /**
   * Runs of one tenant in flight at once (TENANT_MAX_RUNS); a run started beyond it waits in its
   * row until one ends or pauses, its workflow not yet started (api/services/admission.ts). Absent: no cap.
   */
  tenantMaxRuns?: number;
  /** How deep this run is nested in InvokeCanvas child runs (0: a top-level run). */
  nestingDepth?: number;
}

export interface ToolCallingTable {
  byFactory: Record<string, boolean>;
  defaultFactory: string;
  defaultModelId: string;
}

export const DEFAULT_RUN_SETTINGS: RunSettings = {
  maxParallel: 5,
  heartbeatTimeoutMs: 60_000,
  componentTimeoutS: 600,
  infraRetries: 5,
  maxSteps: 10_000,
  continueAsNewAfterEvents: 10_000,
};
