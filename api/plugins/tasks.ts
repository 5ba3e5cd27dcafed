/**
 * `POST /api/v1/tasks/{task_id}/cancel` (RAGFlow). A task id is a run id; as in RAGFlow (where a
 * canvas task id is the session id) a session id cancels the session's current run.
 *
 * RAGFlow answers `{code: 0, data: true}` for any id: it raises a cancel flag for the id whether
 * or not a task has it, and leaves finished tasks alone. The envelope stays RAGFlow's; `message`
 * tells what happened: "success" only when a run of this tenant was running and got the cancel
 * signal. An unknown id and another tenant's id get the same answer (nothing shows of other
 * tenants); a run that already ended says so with its status.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { cancelRunById } from '../services/cancel';

export async function tasksPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/api/v1/tasks/:task_id/cancel',
    {
      config: { ragflow: true },
      schema: { tags: ['runs'], summary: 'Cancel a running task (run id or session id); message says whether anything was canceled' },
    },
    async (request) => {
      const { task_id } = request.params as { task_id: string };
      const run = (await deps.store.runs.get(request.tenantId, task_id)) ?? (await deps.store.runs.activeForSession(request.tenantId, task_id));
      if (!run) return { ...ragflowJson(true), message: `No task ${task_id} was found: nothing was canceled.` };
      if (await cancelRunById(deps, run, 'canceled through /tasks/{task_id}/cancel')) return ragflowJson(true);
      const ended = (await deps.store.runs.get(request.tenantId, run.id)) ?? run;
      return { ...ragflowJson(true), message: `Task ${task_id} had already ended (${ended.status}): nothing was canceled.` };
    },
  );
}
