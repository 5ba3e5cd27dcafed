/**
 * Our run routes: status with path and node states, the resumable event stream, and cancel.
 */
import type { FastifyInstance } from 'fastify';
import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import type { RunRecord } from '../../src/io/store/contract';
import { progressQuery, type RunProgress } from '../../workflows/definitions';
import type { AppDeps } from '../deps';
import { openSse } from '../sse';
import { cancelRunById } from '../services/cancel';
import { followRun } from '../services/followers';
import { submitRunInputs } from '../services/inputs';
import { queuedActivities, type QueuedActivity } from '../services/queuedActivities';
import { eventId, followRunEvents, parseEventId } from '../services/eventStream';
import { travelView } from '../services/travelView';
import { runDsl } from '../services/runDsl';
import { canceledRunUsage, runFacts } from '../services/runFacts';

const TaskParams = z.object({ task_id: z.string().min(1) });

const InputsBody = z.object({
  /** Field key → value, or RAGFlow's `{value, type...}` objects. */
  inputs: z.record(z.string(), z.unknown()),
  /** Text sent along: becomes `sys.query` and a user turn of the conversation. */
  query: z.unknown().optional(),
});

/**
 * Whether the run's workflow exists: true when its progress query answered, false when Temporal
 * has no such workflow (a row recorded by an API that died before the start: the reconciler fails
 * it, and no client was told it started), null when Temporal could not say.
 */
async function workflowStarted(deps: AppDeps, run: RunRecord, progress: RunProgress | null): Promise<boolean | null> {
  if (progress) return true;
  try {
    await deps.temporal.workflow.getHandle(run.workflow_id).describe();
    return true;
  } catch (err) {
    return err instanceof WorkflowNotFoundError ? false : null;
  }
}

/**
 * The nodes as the workflow reports them, those whose call waits in the task queue marked `queued`
 * (with since when), those whose model call waits for provider capacity `waiting_capacity`.
 */
function nodesWithQueued(progress: RunProgress | null, queued: QueuedActivity[]): Record<string, unknown> {
  const nodes: Record<string, unknown> = { ...(progress?.nodes ?? {}) };
  for (const q of queued) {
    const node = q.component_id ? progress?.nodes[q.component_id] : undefined;
    if (!node || node.finishedAt !== null) continue;
    const earlier = nodes[q.component_id!] as { queued_since?: number };
    // A node with several calls waiting (an Agent's tools) has waited since its oldest one.
    const since = Math.min(q.since, earlier.queued_since ?? q.since);
    // A node whose model call waits for room under PROVIDER_LIMITS (none of its calls in the task queue).
    const status = q.waiting_for === 'provider_capacity' && (earlier as { status?: string }).status !== 'queued' ? 'waiting_capacity' : 'queued';
    nodes[q.component_id!] = { ...node, status, queued_since: since, queued_ms: q.queued_ms + (q.since - since) };
  }
  return nodes;
}

function isTerminal(run: RunRecord): boolean {
  return run.status === 'finished' || run.status === 'failed' || run.status === 'canceled';
}

function runView(
  run: RunRecord,
  progress: RunProgress | null,
  children: RunRecord[],
  started: boolean | null,
  queued: QueuedActivity[],
): Record<string, unknown> {
  const terminal = isTerminal(run);
  return {
    id: run.id,
    task_id: run.id,
    status: terminal ? run.status : (progress?.status ?? run.status),
    canvas_id: run.canvas_id,
    session_id: run.session_id,
    workflow_id: run.workflow_id,
    canvas_version_id: run.canvas_version_id,
    parent_run_id: run.parent_run_id,
    // Sub-agents this run called: each a run (and child workflow) of its own.
    children: children.map((c) => ({ task_id: c.id, workflow_id: c.workflow_id, status: c.status })),
    create_time: run.create_time,
    update_time: run.update_time,
    finish_time: run.finish_time,
    path: progress?.path ?? [],
    nodes: nodesWithQueued(progress, queued),
    // Calls scheduled but not yet taken by a worker (its slots are full, or none polls).
    queued,
    pending_inputs: progress?.pendingInputs ?? null,
    workflow_started: started,
    usage: progress?.usage ?? (run.result as { usage?: unknown } | null)?.usage ?? null,
    result: run.result,
    error: run.error ?? progress?.error ?? null,
  };
}

export async function runsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  const findRun = async (tenantId: string, id: string): Promise<RunRecord> => {
    const run = await store.runs.get(tenantId, id);
    if (!run) throw new AppError('NOT_FOUND', `No run ${id}`);
    return run;
  };

  app.get(
    '/api/v1/runs/:task_id',
    { schema: { tags: ['runs'], summary: 'Status, path, node states, pending inputs and result of a run', params: TaskParams } },
    async (request) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const run = await findRun(request.tenantId, task_id);
      let progress: RunProgress | null = null;
      try {
        progress = await deps.temporal.workflow.getHandle(run.workflow_id).query(progressQuery);
      } catch (err) {
        deps.log.debug('progress query failed', { runId: run.id, error: err instanceof Error ? err.message : String(err) });
      }
      const queued = progress && !isTerminal(run) ? await queuedActivities(deps.temporal, run.workflow_id, Object.keys(progress.nodes), Date.now()) : [];
      const view = runView(run, progress, await store.runs.children(run.id), await workflowStarted(deps, run, progress), queued);
      // Started beyond TENANT_MAX_RUNS: the run waits its turn, its workflow not started yet (api/services/admission.ts).
      const waiting = run.status === 'running' ? await store.admission.waitingSince(run.id) : null;
      if (waiting !== null) view.waiting_for_tenant = { since: waiting, waited_ms: Math.max(0, Date.now() - waiting) };
      if (run.status === 'canceled') view.usage = await canceledRunUsage(store, run.tenant_id, run.id, view.usage as Record<string, number> | null);
      // A fork's forked_from, reused_from and savings (api/services/travel.ts); names and who
      // started it, deleted canvases and sessions included (api/services/runFacts.ts).
      return { ...view, ...(await runFacts(deps, run)), ...(await travelView(store, run)) };
    },
  );

  app.get(
    '/api/v1/runs/:task_id/events',
    {
      schema: {
        tags: ['runs'],
        summary: 'The run’s events as SSE, resumable with Last-Event-ID; ends with [DONE] once the run ended',
        description: 'Each `data:` line is a RunEvent (components.schemas.RunEvent); each `id:` line is the event’s `<seq>-<sub>`.',
        params: TaskParams,
      },
    },
    async (request, reply) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const run = await findRun(request.tenantId, task_id);
      const q = request.query as { last_event_id?: string };
      const rawId = (request.headers['last-event-id'] as string | undefined) ?? q.last_event_id;
      let after;
      try {
        after = parseEventId(rawId);
      } catch (err) {
        throw new AppError('BAD_REQUEST', err instanceof Error ? err.message : String(err), {
          problems: [{ path: '$.headers["last-event-id"]', message: 'must be <seq>-<sub>' }],
        });
      }
      const sse = openSse(request, reply);
      // A reader here keeps the run's session from being superseded (services/turns/supersede.ts).
      const unfollow = followRun(run.id);
      sse.signal.addEventListener('abort', unfollow, { once: true });
      try {
        for await (const e of followRunEvents(store, run.id, { after, signal: sse.signal })) {
          sse.send(
            {
              event: e.event,
              message_id: e.message_id,
              created_at: e.created_at,
              task_id: e.task_id,
              data: e.data,
              ...(run.session_id ? { session_id: run.session_id } : {}),
            },
            eventId(e),
          );
        }
      } catch (err) {
        // The store failed mid-stream (an outage). The reply is hijacked, so Fastify's error
        // handler cannot answer and the stream would hang: end it without [DONE], and the client
        // resumes with Last-Event-ID (getting a 503 until the store is back).
        deps.log.warn('event stream ended by an error; the client resumes', { runId: run.id, error: err instanceof Error ? err.message : String(err) });
        sse.close();
        return reply;
      }
      if (!sse.signal.aborted) sse.done();
      return reply;
    },
  );

  app.get(
    '/api/v1/runs/:task_id/dsl',
    { schema: { tags: ['runs'], summary: 'The canvas DSL the run was started with (secrets redacted), from its workflow history', params: TaskParams } },
    async (request) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      return runDsl(deps.temporal, await findRun(request.tenantId, task_id));
    },
  );

  app.post(
    '/api/v1/runs/:task_id/inputs',
    {
      schema: {
        tags: ['runs'],
        summary: 'Submit the form a paused run waits for (UserFillUp); 400 names each bad field and the run stays paused',
        params: TaskParams,
        body: InputsBody,
      },
    },
    async (request, reply) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const body = request.body as z.infer<typeof InputsBody>;
      const run = await findRun(request.tenantId, task_id);
      const resumed = await submitRunInputs(deps, run, { inputs: body.inputs, ...(body.query !== undefined ? { query: body.query } : {}) });
      // Follow the continuation on /events with Last-Event-ID: resumed_after.
      return reply.status(202).send({ id: run.id, task_id: run.id, status: 'running', resumed_after: eventId(resumed.after) });
    },
  );

  app.post('/api/v1/runs/:task_id/cancel', { schema: { tags: ['runs'], summary: 'Cancel a run', params: TaskParams } }, async (request, reply) => {
    const { task_id } = request.params as z.infer<typeof TaskParams>;
    const run = await findRun(request.tenantId, task_id);
    const signalled = await cancelRunById(deps, run, 'canceled through /api/v1/runs/{id}/cancel');
    return reply
      .status(signalled ? 202 : 409)
      .send(signalled ? { id: run.id, status: 'canceling' } : { code: 'CONFLICT', message: `Run ${run.id} has already ended (${run.status})` });
  });
}
