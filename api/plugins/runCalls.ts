/**
 * What a run's nodes did, in detail (issue 36): `GET /api/v1/runs/{id}/calls` lists every model
 * call attempt (messages sent, redacted and folded; model and parameters; capacity wait, time to
 * first token, duration; the provider's token counts, cost; the error of a failed attempt) — chat
 * completions and a Retrieval's embedding and rerank requests, each with its `kind` — and
 * `GET /api/v1/runs/{id}/timeline` the bars of the run's Gantt (api/services/runTimeline.ts).
 * Both tenant-scoped: another tenant's run is a 404.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import type { CallTrace, RunRecord, StoredEvent } from '../../src/io/store/contract';
import { progressQuery } from '../../workflows/definitions';
import type { AppDeps } from '../deps';
import { activityWaits } from '../services/activityWaits';
import { timelineOf } from '../services/runTimeline';

const TaskParams = z.object({ task_id: z.string().min(1) });
const CallsQuery = z.object({ node: z.string().min(1).optional().describe('Only the calls of this node (component id)') });

const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
const Folded = z.number().optional().describe('Characters before folding: only the first 8,000 are kept');
const Attempt = z.object({
  id: z.string(),
  kind: z
    .enum(['chat', 'embedding', 'rerank'])
    .describe(
      'chat: a chat completion. embedding / rerank: a request a Retrieval made (as a node or an Agent tool); its messages are the query (role `query`) and, for a rerank, the documents (role `document`, their number in params.documents); no ledger row, so cost 0 and priced false',
    ),
  attempt: z.number(),
  outcome: z.enum(['ok', 'failed']),
  model: z.string().describe('The model that answered (as the provider named it), else the llm_id asked for'),
  started_at: z.number().describe('ms since epoch the attempt began waiting for provider capacity, or (no wait) sent its request'),
  capacity_wait_ms: z.number().describe('Time waited for room under PROVIDER_LIMITS'),
  first_token_ms: z.number().nullable().describe('From the request to the first streamed token or tool call'),
  duration_ms: z.number().describe('From the request to the end of the answer or the error'),
  usage: z.object({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    reported: z.boolean().describe('false: the provider reported none (0, never an estimate)'),
  }),
  cost: z.number(),
  priced: z.boolean(),
  request: z.object({
    messages: z.array(
      z.object({
        role: z.string(),
        content: z.string(),
        folded_chars: Folded,
        tool_calls: z.array(ToolCall).optional(),
        tool_call_id: z.string().optional(),
      }),
    ),
    params: z.record(z.string(), z.unknown()),
    tools: z.array(z.string()),
  }),
  response: z
    .object({ content: z.string(), folded_chars: Folded, reasoning_chars: z.number(), finish_reason: z.string().nullable(), tool_calls: z.array(ToolCall) })
    .nullable(),
  error: z.string().nullable(),
});
/** `GET /api/v1/runs/{id}/calls`: every attempt of every traced call, by call. */
export const CallsResponse = z.object({
  task_id: z.string(),
  calls: z.array(
    z.object({
      call_id: z.string().describe('The Temporal activity id (with `:embedding` or `:rerank` for those requests): its attempts share it'),
      node_id: z.string().nullable(),
      attempts: z.array(Attempt),
    }),
  ),
});

export type RunCalls = z.infer<typeof CallsResponse>;

const Segment = z.object({
  kind: z.enum(['queue', 'capacity', 'attempt', 'retry_wait', 'person']),
  start: z.number(),
  end: z.number(),
  attempt: z.number().optional(),
  outcome: z.enum(['ok', 'failed']).optional(),
  error: z.string().nullable().optional(),
});
const TimelineResponse = z.object({
  task_id: z.string(),
  status: z.string(),
  start: z.number().describe('ms since epoch the run was created'),
  end: z.number().describe('When it ended, or now'),
  executions: z.array(
    z.object({
      node_id: z.string(),
      name: z.string(),
      type: z.string(),
      index: z.number(),
      start: z.number(),
      end: z.number().nullable(),
      status: z.enum(['running', 'done', 'failed', 'waiting_for_person']),
      error: z.string().nullable(),
      segments: z.array(Segment),
    }),
  ),
});

function attemptView(t: CallTrace): z.infer<typeof Attempt> {
  return {
    id: t.id,
    kind: t.kind,
    attempt: t.attempt,
    outcome: t.outcome,
    model: t.model,
    started_at: t.startedAt,
    capacity_wait_ms: t.capacityWaitMs,
    first_token_ms: t.firstTokenMs,
    duration_ms: t.durationMs,
    usage: { prompt_tokens: t.promptTokens, completion_tokens: t.completionTokens, reported: t.usageReported },
    cost: t.cost,
    priced: t.priced,
    request: t.request,
    response: t.response,
    error: t.error,
  };
}

async function allEvents(deps: AppDeps, runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const last = out.at(-1);
    const page = await deps.store.events.list(runId, last ? { seq: last.seq, sub: last.sub } : null, 1000);
    // Streamed tokens are not what the timeline is drawn from.
    out.push(...page.filter((e) => e.sub === 0 || e.event !== 'message'));
    if (page.length < 1000) return out;
  }
}

export async function runCallsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const findRun = async (tenantId: string, id: string): Promise<RunRecord> => {
    const run = await deps.store.runs.get(tenantId, id);
    if (!run) throw new AppError('NOT_FOUND', `No run ${id}`);
    return run;
  };

  app.get(
    '/api/v1/runs/:task_id/calls',
    {
      schema: {
        tags: ['runs'],
        summary:
          'Every model call of the run (or of one node), chat and Retrieval embedding/rerank requests: messages sent (secrets redacted), model, parameters, timing, tokens, cost, attempts',
        params: TaskParams,
        querystring: CallsQuery,
        response: { 200: CallsResponse },
      },
    },
    async (request) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const { node } = request.query as z.infer<typeof CallsQuery>;
      const run = await findRun(request.tenantId, task_id);
      const traces = await deps.store.callTraces.list(request.tenantId, run.id, node);
      const calls = new Map<string, { call_id: string; node_id: string | null; attempts: z.infer<typeof Attempt>[] }>();
      for (const t of traces) {
        const call = calls.get(t.activityId) ?? { call_id: t.activityId, node_id: t.nodeId, attempts: [] };
        call.attempts.push(attemptView(t));
        calls.set(t.activityId, call);
      }
      for (const c of calls.values()) c.attempts.sort((a, b) => a.attempt - b.attempt);
      return { task_id: run.id, calls: [...calls.values()] };
    },
  );

  app.get(
    '/api/v1/runs/:task_id/timeline',
    {
      schema: {
        tags: ['runs'],
        summary:
          'The run as a Gantt: one bar per node execution, with queue waits, provider capacity waits, model call attempts, retries and time waiting for a person',
        params: TaskParams,
        response: { 200: TimelineResponse },
      },
    },
    async (request) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const run = await findRun(request.tenantId, task_id);
      const now = Date.now();
      const [events, traces] = await Promise.all([allEvents(deps, run.id), deps.store.callTraces.list(request.tenantId, run.id)]);
      const nodeIds = [...new Set(events.flatMap((e) => (e.event === 'node_started' ? [e.data.component_id] : [])))];
      const waits = nodeIds.length > 0 ? await activityWaits(deps.temporal, run.workflow_id, nodeIds) : [];
      // A pause still open: which form(s) it waits at, from the workflow.
      const paused =
        run.status === 'paused'
          ? await deps.temporal.workflow
              .getHandle(run.workflow_id)
              .query(progressQuery)
              .then((p) => {
                const ids = p.pendingInputs?.component_ids;
                return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
              })
              .catch((): string[] => [])
          : [];
      // The bars draw chat attempts (the model's rounds); a Retrieval's embedding and rerank requests are in /calls.
      const executions = timelineOf(
        events,
        traces.filter((t) => t.kind === 'chat'),
        waits,
        now,
        paused,
      );
      const ended = run.status === 'finished' || run.status === 'failed' || run.status === 'canceled';
      const end = ended ? Math.max(run.finish_time ?? run.update_time, ...executions.map((x) => x.end ?? 0)) : now;
      return { task_id: run.id, status: run.status, start: run.create_time, end, executions };
    },
  );
}
