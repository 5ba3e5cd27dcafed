/** The SQL of model call traces (migrations 16, 20): one row per attempt, read back per run or node. */
import type { Queryable } from './dbContract';
import type { CallKind, CallTrace, CallTraces, TracedRequest, TracedResponse } from './callTraceTypes';

interface TraceRow {
  id: string;
  kind: CallKind;
  tenant_id: string;
  run_id: string;
  node_id: string | null;
  activity_id: string;
  model: string;
  attempt: number;
  outcome: 'ok' | 'failed';
  request: TracedRequest | string;
  response: TracedResponse | string | null;
  error: string | null;
  started_at: number;
  capacity_wait_ms: number;
  first_token_ms: number | null;
  duration_ms: number;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  usage_reported: boolean;
  cost: number;
  priced: boolean;
}

/** jsonb comes back parsed from both drivers; text is parsed in case a driver returns it raw. */
const parsed = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function toTrace(r: TraceRow): CallTrace {
  return {
    id: r.id,
    kind: r.kind,
    tenantId: r.tenant_id,
    runId: r.run_id,
    nodeId: r.node_id,
    activityId: r.activity_id,
    model: r.model,
    attempt: Number(r.attempt),
    outcome: r.outcome,
    request: parsed(r.request),
    response: r.response === null ? null : parsed(r.response),
    error: r.error,
    startedAt: Number(r.started_at),
    capacityWaitMs: Number(r.capacity_wait_ms),
    firstTokenMs: r.first_token_ms === null ? null : Number(r.first_token_ms),
    durationMs: Number(r.duration_ms),
    promptTokens: Number(r.prompt_tokens),
    completionTokens: Number(r.completion_tokens),
    usageReported: r.usage_reported,
    cost: Number(r.cost),
    priced: r.priced,
  };
}

export function callTracesRepository(db: Queryable): CallTraces {
  return {
    async record(t) {
      await db.query(
        `INSERT INTO model_call_traces (id, tenant_id, run_id, node_id, activity_id, model, attempt, outcome, request, response, error,
           started_at, capacity_wait_ms, first_token_ms, duration_ms, prompt_tokens, completion_tokens, usage_reported, cost, priced, kind)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
         ON CONFLICT (id) DO NOTHING`,
        [
          t.id,
          t.tenantId,
          t.runId,
          t.nodeId,
          t.activityId,
          t.model,
          t.attempt,
          t.outcome,
          JSON.stringify(t.request),
          t.response === null ? null : JSON.stringify(t.response),
          t.error,
          t.startedAt,
          t.capacityWaitMs,
          t.firstTokenMs,
          t.durationMs,
          t.promptTokens,
          t.completionTokens,
          t.usageReported,
          t.cost,
          t.priced,
          t.kind,
        ],
      );
    },
    async list(tenantId, runId, nodeId) {
      const byNode = nodeId !== undefined;
      const result = await db.query<TraceRow>(
        `SELECT * FROM model_call_traces WHERE tenant_id = $1 AND run_id = $2${byNode ? ' AND node_id = $3' : ''} ORDER BY started_at, id`,
        byNode ? [tenantId, runId, nodeId] : [tenantId, runId],
      );
      return result.rows.map(toTrace);
    },
  };
}
