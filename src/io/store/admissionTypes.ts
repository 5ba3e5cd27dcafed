/** Tenant admission (admission.ts): at most TENANT_MAX_RUNS runs of a tenant in flight; later ones wait in turn. */

/** A run's place: admitted, or how many of its tenant's runs wait before it. */
export interface AdmissionTurn {
  admitted: boolean;
  ahead: number;
}

/** A run admitted whose workflow is still to be started with `start` (the launcher's RecordedStart). */
export interface AdmittedStart {
  runId: string;
  tenantId: string;
  start: unknown;
}

export interface AdmissionStore {
  /**
   * Admits the newly recorded run, or makes it wait, keeping `start` to start it with later: it
   * waits when its tenant already has `cap` admitted runs running, or older runs waiting (they go
   * first). Deciding again changes nothing.
   */
  enter(p: { tenantId: string; runId: string; cap: number; now: number; start: unknown }): Promise<AdmissionTurn>;
  /** Admits the oldest waiting runs the tenant has room for: what to start them with, and how many still wait. */
  admitWaiting(p: { tenantId: string; cap: number; now: number }): Promise<{ admitted: AdmittedStart[]; waiting: number }>;
  /** The admitted run's workflow is started: its start is no longer kept. */
  started(runId: string): Promise<void>;
  /** Admitted runs not yet started since before `before` (their starter died): to start again. */
  unstarted(p: { before: number; limit: number }): Promise<AdmittedStart[]>;
  /** Tenants with runs waiting. */
  waitingTenants(limit: number): Promise<string[]>;
  /** Since when (ms since epoch) the running run waits for its tenant's capacity; null when it does not. */
  waitingSince(runId: string): Promise<number | null>;
  /** Ends a waiting run as canceled (it never started); false when it was not waiting. */
  cancelWaiting(runId: string, reason: string, now: number): Promise<boolean>;
}
