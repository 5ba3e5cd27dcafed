/**
 * The cost ledger's SQL: every attempt of a model call with its tokens and cost, the calls replays
 * reused, and their sums per node, run, session, day or model.
 */
import { SqlParams } from './sql';
import { utcDay } from './time';
import type { Queryable } from './dbContract';
import type { Ledger, SavedTotals, UsageGroup, UsageRow, UsageTotals } from './ledgerTypes';

/** The column each group sums by (fixed identifiers, never request text). */
const GROUP_COLUMN: Record<UsageGroup, string> = { node: 'node_id', run: 'run_id', session: 'session_id', day: 'day', model: 'model' };

interface SumRow {
  key: string | null;
  calls: number | string;
  retries: number | string;
  failed_calls: number | string;
  prompt_tokens: number | string | null;
  completion_tokens: number | string | null;
  cost: number | string | null;
  unpriced_calls: number | string;
  unreported_usage_calls: number | string;
  estimated_tokens: number | string | null;
}

const SUMS = `count(*) AS calls,
  count(*) FILTER (WHERE retry) AS retries,
  count(*) FILTER (WHERE outcome = 'failed') AS failed_calls,
  coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(completion_tokens), 0) AS completion_tokens,
  coalesce(sum(cost), 0) AS cost,
  count(*) FILTER (WHERE NOT priced) AS unpriced_calls,
  count(*) FILTER (WHERE NOT usage_reported AND outcome = 'ok') AS unreported_usage_calls,
  coalesce(sum(prompt_tokens + completion_tokens) FILTER (WHERE NOT usage_reported AND outcome = 'failed'), 0) AS estimated_tokens`;

function totalsOf(row: SumRow | undefined): UsageTotals {
  const prompt = Number(row?.prompt_tokens ?? 0);
  const completion = Number(row?.completion_tokens ?? 0);
  return {
    calls: Number(row?.calls ?? 0),
    retries: Number(row?.retries ?? 0),
    failed_calls: Number(row?.failed_calls ?? 0),
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cost: Number(row?.cost ?? 0),
    unpriced_calls: Number(row?.unpriced_calls ?? 0),
    unreported_usage_calls: Number(row?.unreported_usage_calls ?? 0),
    estimated_tokens: Number(row?.estimated_tokens ?? 0),
  };
}

export function ledgerRepository(db: Queryable): Ledger {
  return {
    windows: {
      async take(key, minute, tokens, limits) {
        // One statement: the first request of a window inserts it, later ones add to it only while
        // both counts stay within the limits, so concurrent workers never take more than the limit.
        const result = await db.query<{ requests: number }>(
          `INSERT INTO provider_windows AS w (key, minute, requests, tokens) VALUES ($1, $2, 1, $3)
           ON CONFLICT (key, minute) DO UPDATE SET requests = w.requests + 1, tokens = w.tokens + $3
           WHERE ($4::int IS NULL OR w.requests + 1 <= $4::int) AND ($5::bigint IS NULL OR w.tokens = 0 OR w.tokens + $3 <= $5::bigint)
           RETURNING w.requests`,
          [key, minute, tokens, limits.requests, limits.tokens],
        );
        return result.rows.length > 0;
      },
      async addTokens(key, minute, tokens) {
        if (tokens === 0) return;
        await db.query('UPDATE provider_windows SET tokens = tokens + $3 WHERE key = $1 AND minute = $2', [key, minute, tokens]);
      },
    },
    async record(e) {
      await db.query(
        `INSERT INTO model_calls (id, tenant_id, run_id, root_run_id, session_id, canvas_id, node_id, model, prompt_tokens, completion_tokens,
           usage_reported, cost, priced, attempt, retry, outcome, day, create_time)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
         ON CONFLICT (id) DO NOTHING`,
        [
          e.id,
          e.tenantId,
          e.runId,
          e.rootRunId,
          e.sessionId,
          e.canvasId,
          e.nodeId,
          e.model,
          e.promptTokens,
          e.completionTokens,
          e.usageReported,
          e.cost,
          e.priced,
          e.attempt,
          e.retry,
          e.outcome,
          utcDay(e.time),
          e.time,
        ],
      );
    },
    async recordReuse(r) {
      const result = await db.query<{ run_id: string }>(
        `INSERT INTO model_call_reuses (run_id, call_id, tenant_id, node_id, model, prompt_tokens, completion_tokens, day, create_time)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (run_id, call_id) DO NOTHING RETURNING run_id`,
        [r.runId, r.callId, r.tenantId, r.nodeId, r.model, r.promptTokens, r.completionTokens, utcDay(r.time), r.time],
      );
      return result.rows.length > 0;
    },
    async spent(runRoot, tenantId, day) {
      const result = await db.query<{ scope: string; tokens: number | string | null; cost: number | string | null }>(
        `SELECT 'run' AS scope, sum(prompt_tokens + completion_tokens) AS tokens, sum(cost) AS cost FROM model_calls WHERE root_run_id = $1
         UNION ALL
         SELECT 'day', sum(prompt_tokens + completion_tokens), sum(cost) FROM model_calls WHERE tenant_id = $2 AND day = $3`,
        [runRoot, tenantId, day],
      );
      const of = (scope: string) => {
        const row = result.rows.find((r) => r.scope === scope);
        return { tokens: Number(row?.tokens ?? 0), cost: Number(row?.cost ?? 0) };
      };
      return { run: of('run'), tenantDay: of('day') };
    },
    async usage(tenantId, filter) {
      const params = new SqlParams();
      const where = [`tenant_id = ${params.add(tenantId)}`];
      if (filter.from) where.push(`day >= ${params.add(filter.from)}`);
      if (filter.to) where.push(`day <= ${params.add(filter.to)}`);
      if (filter.runId) where.push(`root_run_id = ${params.add(filter.runId)}`);
      if (filter.canvasId) where.push(`canvas_id = ${params.add(filter.canvasId)}`);
      const whereSql = where.join(' AND ');
      const column = GROUP_COLUMN[filter.groupBy];
      const grouped = await db.query<SumRow>(
        `SELECT ${column} AS key, ${SUMS} FROM model_calls WHERE ${whereSql} GROUP BY ${column} ORDER BY ${column}`,
        params.values(),
      );
      const total = await db.query<SumRow>(`SELECT NULL AS key, ${SUMS} FROM model_calls WHERE ${whereSql}`, params.values());
      // Reuses know their run and day, not the session or canvas: filtered by what they know.
      const savedParams = new SqlParams();
      const savedWhere = [`tenant_id = ${savedParams.add(tenantId)}`];
      if (filter.from) savedWhere.push(`day >= ${savedParams.add(filter.from)}`);
      if (filter.to) savedWhere.push(`day <= ${savedParams.add(filter.to)}`);
      if (filter.runId) savedWhere.push(`run_id = ${savedParams.add(filter.runId)}`);
      const saved = await db.query<{ calls: number | string; prompt_tokens: number | string | null; completion_tokens: number | string | null }>(
        `SELECT count(*) AS calls, coalesce(sum(prompt_tokens), 0) AS prompt_tokens, coalesce(sum(completion_tokens), 0) AS completion_tokens
         FROM model_call_reuses WHERE ${savedWhere.join(' AND ')}`,
        savedParams.values(),
      );
      const s = saved.rows[0];
      const savedTotals: SavedTotals = {
        calls: Number(s?.calls ?? 0),
        prompt_tokens: Number(s?.prompt_tokens ?? 0),
        completion_tokens: Number(s?.completion_tokens ?? 0),
      };
      const rows: UsageRow[] = grouped.rows.map((r) => ({ key: r.key, ...totalsOf(r) }));
      return { rows, total: totalsOf(total.rows[0]), saved: savedTotals };
    },
  };
}
