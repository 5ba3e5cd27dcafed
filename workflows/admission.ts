/**
 * Tenant admission (TENANT_MAX_RUNS; docs/ARCHITECTURE.md, "Provider limits and fairness"). A run the API started
 * beyond its tenant's cap waits here before its first step: durably, holding no worker slot or
 * memory, woken by the `admit` signal of a run that ended and made room. A wake-up that is lost (the
 * ending run's worker died between admitting and signalling, a run terminated by hand, a place
 * freed by a pause) costs at most one {@link recheckAfterMs} interval: the waiting run then asks the
 * store itself. Ending runs admit the next ones (the store decides who, under a per-tenant lock).
 */
import { condition, getExternalWorkflowHandle, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import { admitSignal, cancelSignal, type CanvasRunInput } from './definitions';


/**
 * How long a waiting run waits for a wake-up before it asks the store itself: 15 s at the head of
 * the queue, longer the further back it is (its turn cannot come before those ahead of it have
 * theirs), at most 5 minutes; so hundreds of waiting runs do not ask every few seconds.
 */
export function recheckAfterMs(ahead: number, cap: number): number {
  return Math.min(300_000, 15_000 * (1 + Math.floor(ahead / cap)));
}

const admission = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * Whether the run takes part in admission: its input says so. No `patched()` marker is needed (nor
 * its two history events and visibility write per run, which a flood of waiting runs multiplies):
 * only launchers with this code write `admission` into an input, so a history recorded before this
 * code never takes these branches on replay, and every run whose input has it ran them from its
 * first task on (workers are versioned, PINNED: docs/ARCHITECTURE.md, "Deploying workflow changes").
 */
const gated = (input: CanvasRunInput, cap: number | undefined): cap is number => input.admission !== undefined && cap !== undefined;

/**
 * Waits until the run's turn comes. Returns the reason of a cancel that came while it waited (the
 * run then starts canceled, running nothing), else null.
 */
export async function waitForAdmission(input: CanvasRunInput): Promise<string | null> {
  const cap = input.settings.tenantMaxRuns;
  if (!input.admission?.waiting || input.checkpoint || !gated(input, cap)) return null;
  let admitted = false;
  let canceled: string | null = null;
  setHandler(admitSignal, () => {
    admitted = true;
  });
  // Replaced by the run's own handler once it starts (workflows/workflowCarrier.ts).
  setHandler(cancelSignal, (reason?: string) => {
    canceled ??= reason?.trim() || 'canceled by request';
  });
  let ahead = input.admission.ahead ?? 0;
  while (!admitted && canceled === null) {
    if (await condition(() => admitted || canceled !== null, recheckAfterMs(ahead, cap))) break;
    ({ admitted, ahead } = await admission.claimAdmission({ tenantId: input.tenantId, runId: input.runId, cap }));
  }
  return canceled;
}

/** At the run's end: admits the tenant's waiting runs it made room for, and wakes them. */
export async function admitNext(input: CanvasRunInput): Promise<void> {
  const cap = input.settings.tenantMaxRuns;
  if (!gated(input, cap)) return;
  const woken = await admission.admitWaiting({ tenantId: input.tenantId, cap });
  // A run that is gone (terminated, never started) has nobody to wake.
  await Promise.all(
    woken.map((id) =>
      getExternalWorkflowHandle(id)
        .signal(admitSignal)
        .catch(() => undefined),
    ),
  );
}
