/**
 * Evals from production runs (docs/API.md, "Time travel"): `POST /api/v1/evals` replays a set of
 * ended runs with other models, tools frozen, in one durable workflow (workflows/evalRuns.ts) and
 * `GET /api/v1/evals/{id}` reports per run and overall: answers and tool choices changed, tokens
 * before and after, and the judge model's verdict when one was named.
 */
import type { FastifyInstance } from 'fastify';
import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { TENANT_ID_KEY } from '../../src/core/searchAttributes';
import { AppError, type Problem } from '../../src/errors';
import type { EvalRunsInput } from '../../workflows/evalRuns';
import type { AppDeps } from '../deps';
import { launchDeps } from '../services/runLauncher';
import { newId } from '../../src/io/store/time';
import { prepareReplay } from '../services/travelReplay';

const EvalBody = z.object({
  /** Task ids of ended runs (finished or failed) of this tenant. */
  runs: z.array(z.string().min(1)).min(1).max(100),
  model_map: z.record(z.string(), z.string().min(1)),
  /** A model (llm_id) that judges each replay's answer against its source's. */
  judge: z.string().min(1).optional(),
  /** Replays at a time (default 4). */
  concurrency: z.number().int().min(1).max(16).optional(),
});

const EvalParams = z.object({ eval_id: z.string().min(1) });

const workflowIdOf = (evalId: string) => `eval-${evalId}`;

export async function evalsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/api/v1/evals',
    { schema: { tags: ['runs'], summary: 'Replay a set of ended runs with other models, tools frozen, and compare', body: EvalBody } },
    async (request, reply) => {
      const body = request.body as z.infer<typeof EvalBody>;
      const launch = launchDeps(deps);
      // Every run is checked before any replay is recorded.
      const problems: Problem[] = [];
      for (const [i, id] of body.runs.entries()) {
        const run = await deps.store.runs.get(request.tenantId, id);
        if (!run) problems.push({ path: `$.runs[${i}]`, message: `no run ${id}` });
        else if (run.status !== 'finished' && run.status !== 'failed')
          problems.push({ path: `$.runs[${i}]`, message: `run ${id} is ${run.status}: only ended runs are replayed` });
      }
      if (problems.length > 0) throw new AppError('BAD_REQUEST', `runs: ${problems.map((p) => p.message).join('; ')}`, { problems });
      const replays: EvalRunsInput['replays'] = [];
      for (const id of body.runs) {
        const prepared = await prepareReplay(launch, request.tenantId, id, { model_map: body.model_map, tools: 'frozen' });
        replays.push({ sourceRunId: id, workflowId: prepared.answer.workflow_id, input: prepared.input });
      }
      const evalId = newId();
      const input: EvalRunsInput = { evalId, tenantId: request.tenantId, replays, concurrency: body.concurrency ?? 4, judge: body.judge ?? null };
      await deps.temporal.workflow.start('evalRuns', {
        taskQueue: deps.taskQueue,
        workflowId: workflowIdOf(evalId),
        args: [input],
        memo: { tenantId: request.tenantId },
        typedSearchAttributes: [{ key: TENANT_ID_KEY, value: request.tenantId }],
      });
      return reply.status(202).send({ id: evalId, status: 'running', replays: replays.map((r) => ({ source: r.sourceRunId, task_id: r.input.runId })) });
    },
  );

  app.get(
    '/api/v1/evals/:eval_id',
    { schema: { tags: ['runs'], summary: 'An eval’s status and, once done, its report', params: EvalParams } },
    async (request) => {
      const { eval_id } = request.params as z.infer<typeof EvalParams>;
      const handle = deps.temporal.workflow.getHandle(workflowIdOf(eval_id));
      let described;
      try {
        described = await handle.describe();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw new AppError('NOT_FOUND', `No eval ${eval_id}`);
        throw err;
      }
      // Another tenant's eval is not found either.
      if (described.memo?.tenantId !== request.tenantId) throw new AppError('NOT_FOUND', `No eval ${eval_id}`);
      const status = described.status.name.toLowerCase();
      return { id: eval_id, status, ...(status === 'completed' ? { report: await handle.result() } : {}) };
    },
  );
}
