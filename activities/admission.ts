/**
 * Tenant admission's activities (workflows/admission.ts): a waiting run asks whether its turn came;
 * an ending run admits the waiting runs its place (and any other free one) makes room for.
 */
import type { AdmissionTurn, Store } from '../src/io/store/contract';

export interface AdmissionInput {
  tenantId: string;
  /** TENANT_MAX_RUNS when the run started. */
  cap: number;
}

export function createAdmissionActivities(deps: { store: Store }) {
  return {
    /** Whether the waiting run may start now (it is admitted then); else how many wait before it. */
    async claimAdmission(input: AdmissionInput & { runId: string }): Promise<AdmissionTurn> {
      return deps.store.admission.claim({ ...input, now: Date.now() });
    },
    /** Admits the oldest waiting runs of the tenant there is room for; their workflow ids, to wake. */
    async admitWaiting(input: AdmissionInput): Promise<string[]> {
      return deps.store.admission.admitWaiting({ ...input, now: Date.now() });
    },
  };
}
