/**
 * The cost ledger over HTTP (our route, HTTP statuses): `GET /api/v1/usage` sums the tenant's model
 * calls (tokens the providers reported, cost at MODEL_PRICES, retries, failed attempts) per node,
 * run, session, UTC day or model, with the calls replays reused instead of calling again.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { USAGE_GROUPS } from '../../src/io/store/ledgerTypes';
import type { AppDeps } from '../deps';

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC day, YYYY-MM-DD');

const UsageQuery = z.object({
  group_by: z.enum(USAGE_GROUPS).default('run'),
  /** First and last UTC day, inclusive. */
  from: Day.optional(),
  to: Day.optional(),
  /** One run (with its sub-agent runs). */
  run_id: z.string().min(1).optional(),
  /** One agent (canvas). */
  agent_id: z.string().min(1).optional(),
});

const Totals = z.object({
  calls: z.number().describe('Model call attempts, retries and failed ones included'),
  retries: z.number().describe('Attempts after the first of a call'),
  failed_calls: z.number().describe('Attempts that ended in an error (recorded with 0 tokens: no usage came back)'),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  cost: z.number().describe('At MODEL_PRICES, in its currency'),
  unpriced_calls: z.number().describe('Calls of models MODEL_PRICES does not price (cost 0)'),
  unreported_usage_calls: z.number().describe('Finished calls whose provider reported no usage (0 tokens, never an estimate)'),
  estimated_tokens: z.number().describe('Of the tokens, those estimated (characters ÷ 4) for attempts a cancel cut off mid-stream, where no usage came back'),
});

const UsageResponse = z.object({
  group_by: z.enum(USAGE_GROUPS),
  rows: z.array(Totals.extend({ key: z.string().nullable().describe('The node id, run id, session id, UTC day or model') })),
  total: Totals,
  saved: z
    .object({ calls: z.number(), prompt_tokens: z.number(), completion_tokens: z.number() })
    .describe('What durability saved: finished calls a replay reused instead of calling the model again, with their recorded tokens'),
});

export async function usagePlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.get(
    '/api/v1/usage',
    {
      schema: {
        tags: ['usage'],
        summary: 'Model usage and cost of the tenant, per node, run, session, UTC day or model (group_by); from/to days, run_id, agent_id',
        querystring: UsageQuery,
        response: { 200: UsageResponse },
      },
    },
    async (request) => {
      const q = request.query as z.infer<typeof UsageQuery>;
      const { rows, total, saved } = await deps.store.ledger.usage(request.tenantId, {
        groupBy: q.group_by,
        ...(q.from ? { from: q.from } : {}),
        ...(q.to ? { to: q.to } : {}),
        ...(q.run_id ? { runId: q.run_id } : {}),
        ...(q.agent_id ? { canvasId: q.agent_id } : {}),
      });
      return { group_by: q.group_by, rows, total, saved };
    },
  );
}
