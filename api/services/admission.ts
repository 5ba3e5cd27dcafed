/**
 * Tenant admission (TENANT_MAX_RUNS; docs/ARCHITECTURE.md, "Provider limits and fairness"). A run
 * started beyond its tenant's cap is recorded (row, announcement, its start kept in the row) but
 * its workflow is not started: hundreds of waiting runs cost Temporal and the workers nothing, and
 * another tenant's start is not queued behind theirs in the server. A watcher per tenant with
 * waiting runs (one per API process; the store's per-tenant lock decides who is admitted) starts
 * them in start order whenever the tenant's runs change (an end, a pause: a paused run holds no
 * place) and at least every second. After a restart the reconciler's pass resumes the watchers and
 * starts runs admitted by a process that died before starting them (starts are idempotent).
 */
import { CANCELED_MESSAGE } from '../../src/core/engine';
import { runEvent } from '../../src/core/engine/runEvents';
import type { Logger } from '../../src/io/log';
import type { RunSettings } from '../../src/core/runSettings';
import type { AdmittedStart, RunRecord, Store } from '../../src/io/store/contract';

/** Tenants this process watches, and those asked for again while their watcher was finishing. */
const watched = new Set<string>();
const again = new Set<string>();

export interface AdmissionDeps {
  store: Store;
  settings: RunSettings;
  log?: Logger;
  /** Starts a run's workflow from its kept start (the launcher's startRecordedRun, handed in: it calls this module). */
  start: (recorded: unknown) => Promise<unknown>;
}

async function startAdmitted(deps: AdmissionDeps, admitted: AdmittedStart): Promise<void> {
  try {
    // A start Temporal refuses fails the run (its readers get run_failed); it is not tried again.
    await deps.start(admitted.start);
  } catch (err) {
    deps.log?.warn('an admitted run could not start', { runId: admitted.runId, error: err instanceof Error ? err.message : String(err) });
  }
  await deps.store.admission.started(admitted.runId);
}

/** Starts the tenant's waiting runs as places free up, until none waits (a no-op without a cap). */
export function watchAdmission(deps: AdmissionDeps, tenantId: string): void {
  const cap = deps.settings.tenantMaxRuns;
  if (!cap) return;
  if (watched.has(tenantId)) {
    again.add(tenantId);
    return;
  }
  watched.add(tenantId);
  let wake: (() => void) | null = null;
  let changed = false;
  const watch = async () => {
    const unsubscribe = await deps.store.runChanges.subscribe(tenantId, () => {
      changed = true;
      wake?.();
    });
    try {
      for (;;) {
        changed = false;
        again.delete(tenantId);
        const { admitted, waiting } = await deps.store.admission.admitWaiting({ tenantId, cap, now: Date.now() });
        for (const a of admitted) await startAdmitted(deps, a);
        // Nothing waits: done, unless a run was made to wait meanwhile (checked without an await in between).
        if (waiting === 0 && !again.has(tenantId)) return;
        if (!changed && !again.has(tenantId)) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 1000).unref()));
        wake = null;
      }
    } finally {
      unsubscribe();
      watched.delete(tenantId);
    }
  };
  void watch().catch((err: unknown) =>
    deps.log?.warn('tenant admission watcher stopped', { tenantId, error: err instanceof Error ? err.message : String(err) }),
  );
}

/**
 * The reconciler's pass: starts runs admitted more than `graceMs` ago whose starter died before
 * starting them, and a watcher for every tenant with waiting runs (those made to wait before a restart too).
 */
export async function resumeAdmissions(deps: AdmissionDeps, graceMs: number, limit = 100): Promise<number> {
  if (!deps.settings.tenantMaxRuns) return 0;
  const unstarted = await deps.store.admission.unstarted({ before: Date.now() - graceMs, limit });
  for (const a of unstarted) await startAdmitted(deps, a);
  const tenants = await deps.store.admission.waitingTenants(limit);
  for (const t of tenants) watchAdmission(deps, t);
  return unstarted.length + tenants.length;
}

/**
 * Cancels a run that waits for its tenant's capacity (it has no workflow yet): the row ends
 * canceled, its followers get `run_canceled` and `workflow_finished` as from a canceled workflow,
 * and its session is released. False when the run does not wait (it has a workflow to signal).
 */
export async function cancelWaitingRun(deps: { store: Store }, run: RunRecord, reason: string): Promise<boolean> {
  const now = Date.now();
  if (!(await deps.store.admission.cancelWaiting(run.id, reason, now))) return false;
  const last = await deps.store.runs.lastEvent(run.id);
  const seq = last?.seq ?? 0;
  const envelope = (n: number) => ({ seq: seq + n, sub: 0, message_id: last?.message_id ?? run.id, created_at: Math.floor(now / 1000), task_id: run.id });
  await deps.store.events.append(run.id, [
    runEvent(envelope(1), 'run_canceled', { reason }),
    runEvent(envelope(2), 'workflow_finished', { outputs: CANCELED_MESSAGE, elapsed_time: (now - run.create_time) / 1000, created_at: run.create_time / 1000 }),
  ]);
  if (run.session_id) await deps.store.sessions.release(run.session_id, run.id);
  return true;
}
