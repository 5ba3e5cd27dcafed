/**
 * The tenant's runs as a collection (our routes, HTTP statuses): `GET /api/v1/runs` lists them
 * newest first with filters and paging; `POST /api/v1/runs` starts a run of a canvas and answers
 * at once with its id (202), the run then followed on `GET /api/v1/runs/{id}/events`. A start
 * takes a session turn as the completion route does (a new session unless one is named), so the
 * conversation and the session's one-run-at-a-time rule are the same whichever route started it.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import type { RunRecordStatus } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { pageParams } from '../paging';
import { listRuns, RUN_STATUSES } from '../services/runList';
import { startRunTurn } from '../services/turns/runTurn';
import { readMessageOptions } from '../services/turns/messagePolicy';

const ListQuery = z.object({
  page: z.string().optional(),
  page_size: z.string().optional(),
  canvas_id: z.string().optional(),
  session_id: z.string().optional(),
  /** One status or several, comma-separated. */
  status: z.string().optional(),
});

const StartBody = z.object({
  agent_id: z.string().min(1),
  query: z.string().optional(),
  /** Begin's inputs: field key → value (or RAGFlow's `{value, type}` objects). */
  inputs: z.record(z.string(), z.unknown()).optional(),
  /** Continue this session (its next turn); absent: a new session. */
  session_id: z.string().min(1).optional(),
  user_id: z.string().min(1).optional(),
  /** What the query does while the session's turn runs (docs/API.md, "message_policy"); absent: the agent's. */
  message_policy: z.enum(['reject', 'enqueue', 'interrupt', 'steer']).optional(),
  /** The request's message id: a steer retried with it is applied once (or the Idempotency-Key header). */
  message_id: z.string().min(1).max(200).optional(),
});

function statusesOf(raw: string | undefined): RunRecordStatus[] | undefined {
  if (!raw) return undefined;
  const wanted = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = wanted.filter((s) => !(RUN_STATUSES as readonly string[]).includes(s));
  if (bad.length > 0) {
    const message = `must be one or more of ${RUN_STATUSES.join(', ')} (comma-separated), got ${bad.map((b) => JSON.stringify(b)).join(', ')}`;
    throw new AppError('BAD_REQUEST', `status ${message}`, { problems: [{ path: '$.query.status', message }] });
  }
  return wanted as RunRecordStatus[];
}

export async function runsIndexPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;

  app.get(
    '/api/v1/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'The tenant’s runs, newest first: filter by canvas_id, status (comma-separated) and session_id; page and page_size',
        querystring: ListQuery,
      },
    },
    async (request) => {
      const q = request.query as z.infer<typeof ListQuery>;
      const paging = pageParams(q, 'create_time');
      const { items, total } = await listRuns(store, request.tenantId, {
        page: paging.page,
        pageSize: Math.min(paging.pageSize, 200),
        ...(q.canvas_id ? { canvasId: q.canvas_id } : {}),
        ...(q.session_id ? { sessionId: q.session_id } : {}),
        statuses: statusesOf(q.status),
      });
      // Forks name the run they came from (api/services/travel.ts).
      const travelled = await store.travel.getMany(items.map((i) => i.id));
      const rows = items.map((i) => {
        const t = travelled.get(i.id);
        return t ? { ...i, forked_from: { task_id: t.source_run_id, component_id: t.from_component, kind: t.kind } } : i;
      });
      return { items: rows, total, page: paging.page, page_size: Math.min(paging.pageSize, 200) };
    },
  );

  app.post(
    '/api/v1/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'Start a run of a canvas (a session turn) with a query and Begin inputs; 202 with its id, followed on /runs/{id}/events',
        body: StartBody,
      },
    },
    async (request, reply) => {
      const body = request.body as z.infer<typeof StartBody>;
      const run = await startRunTurn(deps, request.tenantId, {
        agentId: body.agent_id,
        query: body.query ?? '',
        inputs: body.inputs ?? null,
        sessionId: body.session_id ?? null,
        userId: body.user_id ?? request.tenantId,
        message: readMessageOptions(body, request.headers),
      });
      const ids = { id: run.runId, task_id: run.runId, session_id: run.sessionId, workflow_id: run.workflowId };
      if (run.queued) return reply.status(202).send({ ...ids, status: 'queued', position: run.queued.position, message_id: run.queued.messageId });
      if (run.steered) return reply.status(202).send({ ...ids, status: 'steered', message_id: run.steered.steerId, component_ids: run.steered.componentIds });
      return reply.status(202).send({ ...ids, status: 'running' });
    },
  );
}
