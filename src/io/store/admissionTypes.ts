/** Tenant admission (admission.ts): at most TENANT_MAX_RUNS runs of a tenant in flight; later ones wait in turn. */

export type Admission = 'admitted' | 'waiting';

/** A waiting run's place: how many of its tenant's runs wait before it (0 when admitted). */
export interface AdmissionTurn {
  admitted: boolean;
  ahead: number;
}

export interface AdmissionStore {
  /**
   * Admits the newly started run, or makes it wait: it waits when its tenant already has `cap`
   * admitted runs running, or older runs waiting (they go first). Deciding again changes nothing.
   */
  enter(p: { tenantId: string; runId: string; cap: number; now: number }): Promise<AdmissionTurn>;
  /** Whether the run may go on: it was admitted, or its turn came (admitted now); else its place. */
  claim(p: { tenantId: string; runId: string; cap: number; now: number }): Promise<AdmissionTurn>;
  /** Admits the oldest waiting runs the tenant has room for; their workflow ids, to wake them. */
  admitWaiting(p: { tenantId: string; cap: number; now: number }): Promise<string[]>;
  /** Since when (ms since epoch) the running run waits for its tenant's capacity; null when it does not. */
  waitingSince(runId: string): Promise<number | null>;
}
