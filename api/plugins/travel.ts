/**
 * Time travel routes (docs/API.md, "Time travel"): fork a run from one of its components, rerun a
 * failed run from its failed component. Each answers 202 with the new run's task id (followed on
 * /runs/{id}/events like any run), what it reused and what that saved.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../deps';
import { launchDeps } from '../services/runLauncher';
import { forkRun, rerunFailed } from '../services/travel';
import { replayRun } from '../services/travelReplay';

const TaskParams = z.object({ task_id: z.string().min(1) });

const ForkBody = z.object({
  /** The component the new run starts from: it and everything after it run again. */
  from: z.string().min(1),
  /** Values the forked components read instead: `<component_id>@<output>`, `sys.<name>`, `env.<name>`. */
  inputs: z.record(z.string(), z.unknown()).optional(),
  /** Params to change, by component id: merged over the component's params, checked as a canvas save is. */
  params: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  /** Run this version of the canvas instead of the one the source ran. */
  dsl_version: z.string().min(1).optional(),
  /** `from` inside an Iteration/Loop: the item (0-based) that restarts; earlier items are reused. Absent: the first. */
  item: z.number().int().min(0).optional(),
});

const ReplayBody = z.object({
  /** Model ids to replace: `{<llm_id>: <llm_id>}` (every component using the key's model calls the value's). */
  model_map: z.record(z.string(), z.string().min(1)),
  /** `frozen`: tool calls answer what the source's did, no tool is reached; `live`: tools are called again. */
  tools: z.enum(['frozen', 'live']).default('frozen'),
});

export async function travelPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/api/v1/runs/:task_id/fork',
    {
      schema: {
        tags: ['runs'],
        summary: 'Fork a run from a component: a new run that reuses what ran before it and runs it and what follows with edited inputs/params',
        params: TaskParams,
        body: ForkBody,
      },
    },
    async (request, reply) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const body = request.body as z.infer<typeof ForkBody>;
      const run = await forkRun(launchDeps(deps), request.tenantId, task_id, body);
      return reply.status(202).send({ id: run.task_id, status: 'running', ...run });
    },
  );

  app.post(
    '/api/v1/runs/:task_id/rerun',
    { schema: { tags: ['runs'], summary: 'Rerun a failed run from its failed component, on the canvas as saved now', params: TaskParams } },
    async (request, reply) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const run = await rerunFailed(launchDeps(deps), request.tenantId, task_id);
      return reply.status(202).send({ id: run.task_id, status: 'running', ...run });
    },
  );

  app.post(
    '/api/v1/runs/:task_id/replay',
    {
      schema: {
        tags: ['runs'],
        summary: 'Replay an ended run from the start with other models (model_map), tools frozen (answered from the source run) or live',
        params: TaskParams,
        body: ReplayBody,
      },
    },
    async (request, reply) => {
      const { task_id } = request.params as z.infer<typeof TaskParams>;
      const body = request.body as z.infer<typeof ReplayBody>;
      const run = await replayRun(launchDeps(deps), request.tenantId, task_id, body);
      return reply.status(202).send({ id: run.task_id, status: 'running', ...run });
    },
  );
}
