/**
 * Facts about a run that its row alone does not tell the run view: what its canvas was called
 * once the canvas is deleted (the title its workflow was started with, kept in the Temporal memo),
 * whether the session it was a turn of still exists, who started it, why it was canceled, and
 * what a canceled run really used.
 *
 * A canceled run's own usage counts only the model calls that finished; the call the cancel cut
 * off was sent and streamed part of its answer all the same. The cost ledger records that cut
 * attempt with an estimate (activities/meteredLlm.ts), so a canceled run reports the larger of
 * the two sums, flagged `estimated`.
 */
import type { RunRecord, RunSummary, Store } from '../../src/io/store/contract';
import type { UsageTotals } from '../../src/io/store/ledgerTypes';
import type { AppDeps } from '../deps';

/** Who started a run; `session`: a turn of a session deleted since (its user went with it). */
export interface StartedBy {
  kind: 'user' | 'run' | 'webhook' | 'document' | 'schedule' | 'session';
  id: string;
}

/** The user a scheduled run acts as is `schedule:<id>` (server/boot/scheduledRuns.ts scheduleUser). */
const SCHEDULE_USER_PREFIX = 'schedule:';

/** An ingestion pipeline's run parses a document under its workflow id (workflows/indexDocument.ts indexWorkflowId). */
const PARSE_WORKFLOW_PREFIX = 'index-document-';

/**
 * Who started a run, read from its own row first: a run with a session was a session turn even
 * once that session is deleted; only a run with neither a parent nor a session came in through a
 * webhook (or a test's bare launch).
 */
export function startedByOf(row: Pick<RunSummary, 'parent_run_id' | 'session_user' | 'session_id' | 'workflow_id'>): StartedBy {
  if (row.parent_run_id) return { kind: 'run', id: row.parent_run_id };
  if (row.session_user?.startsWith(SCHEDULE_USER_PREFIX)) return { kind: 'schedule', id: row.session_user.slice(SCHEDULE_USER_PREFIX.length) };
  if (row.session_user) return { kind: 'user', id: row.session_user };
  if (row.session_id) return { kind: 'session', id: row.session_id };
  if (row.workflow_id.startsWith(PARSE_WORKFLOW_PREFIX)) return { kind: 'document', id: row.workflow_id.slice(PARSE_WORKFLOW_PREFIX.length) };
  return { kind: 'webhook', id: '' };
}

type Usage = Record<string, number | boolean>;

/** `recorded` (the run's own usage), or the ledger's sums when a canceled run's cut call makes them larger. */
export function usageAfterCancel(recorded: Usage | null, ledger: UsageSums): Usage | null {
  const total = typeof recorded?.total_tokens === 'number' ? recorded.total_tokens : 0;
  if (ledger.total_tokens <= total) return recorded;
  return {
    ...(recorded ?? {}),
    prompt_tokens: ledger.prompt_tokens,
    completion_tokens: ledger.completion_tokens,
    total_tokens: ledger.total_tokens,
    calls: Math.max(Number(recorded?.calls ?? 0), ledger.calls),
    estimated: true,
  };
}

type UsageSums = Pick<UsageTotals, 'calls' | 'prompt_tokens' | 'completion_tokens' | 'total_tokens'>;

/** The ledger's sums of a run as usage totals (the fields usageAfterCancel reads). */
export function ledgerTotals(sums: { calls: number; prompt_tokens: number; completion_tokens: number }): UsageSums {
  return { ...sums, total_tokens: sums.prompt_tokens + sums.completion_tokens };
}

/** A canceled run's usage with its cut call counted (the ledger's sums over the run and its sub-agents). */
export async function canceledRunUsage(store: Store, tenantId: string, runId: string, recorded: Usage | null): Promise<Usage | null> {
  const { total } = await store.ledger.usage(tenantId, { groupBy: 'run', runId });
  return usageAfterCancel(recorded, total);
}

export interface RunFacts {
  canvas_title: string | null;
  canvas_deleted: boolean;
  session_deleted: boolean;
  started_by: StartedBy;
  /** Why the run was canceled (its `run_canceled` event), for a canceled run. */
  cancel_reason: string | null;
}

/** The title the run's workflow was started with (its memo): a deleted canvas's last name. */
async function titleFromMemo(deps: AppDeps, workflowId: string): Promise<string | null> {
  try {
    const title = (await deps.temporal.workflow.getHandle(workflowId).describe()).memo?.title;
    return typeof title === 'string' ? title : null;
  } catch {
    // Temporal no longer holds the workflow (retention) or cannot answer: the id is shown instead.
    return null;
  }
}

export async function runFacts(deps: AppDeps, run: RunRecord): Promise<RunFacts> {
  const { store } = deps;
  const [canvas, session, canceled] = await Promise.all([
    store.canvases.get(run.tenant_id, run.canvas_id),
    run.session_id ? store.sessions.get(run.tenant_id, run.canvas_id, run.session_id) : Promise.resolve(null),
    run.status === 'canceled' ? store.events.lastNamed(run.id, 'run_canceled') : Promise.resolve(null),
  ]);
  const reason = (canceled?.data as { reason?: unknown } | undefined)?.reason;
  return {
    canvas_title: canvas?.title ?? (await titleFromMemo(deps, run.workflow_id)),
    canvas_deleted: canvas === null,
    session_deleted: run.session_id !== null && session === null,
    started_by: startedByOf({ ...run, session_user: session?.user_id ?? null }),
    cancel_reason: typeof reason === 'string' ? reason : null,
  };
}
