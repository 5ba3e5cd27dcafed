/**
 * The worker's side of workflows/ledgerSinks.ts: records a model call a replay reused in the cost
 * ledger (once per run and call, however many replays report it) and counts it for Prometheus.
 * Fire and forget: a sink cannot hold up the workflow, so a failed write is only logged.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { Logger } from '../src/io/log';
import { modelCallsSaved, modelTokensSaved } from '../src/io/metrics/ledger';
import type { Store } from '../src/io/store/contract';
import type { LedgerSinks, ReusedCall } from '../workflows/ledgerSinks';

export function ledgerSinks(store: Store, log: Logger): InjectedSinks<LedgerSinks> {
  const record = async (call: ReusedCall) => {
    const run = await store.runs.getById(call.runId);
    if (!run) return;
    const added = await store.ledger.recordReuse({ ...call, tenantId: run.tenant_id, time: Date.now() });
    if (!added) return;
    modelCallsSaved.inc();
    modelTokensSaved.inc({ kind: 'prompt' }, call.promptTokens);
    modelTokensSaved.inc({ kind: 'completion' }, call.completionTokens);
  };
  return {
    ledger: {
      reused: {
        fn: (_info, call) => {
          record(call).catch((err: unknown) => log.warn('the cost ledger could not record a reused model call', { runId: call.runId, error: String(err) }));
        },
        callDuringReplay: true,
      },
    },
  };
}

/** Sinks that record nothing: for replaying stored histories (the replay gate), which reuse every call by design. */
export const IGNORED_LEDGER_SINKS: InjectedSinks<LedgerSinks> = { ledger: { reused: { fn: () => undefined, callDuringReplay: true } } };
