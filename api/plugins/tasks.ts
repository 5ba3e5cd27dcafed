/**
 * RAGFlow's task routes: `POST /api/v1/tasks/{task_id}/cancel` and `PATCH /api/v1/tasks/{task_id}`
 * with `{action: "stop"}` (the only action RAGFlow supports; another is code 101 "Invalid action
 * '<a>'. Only 'stop' is supported.", no action is RAGFlow's "required argument are missing:
 * action; "). A task id is a run id; as in RAGFlow (where a canvas task id is the session id) a
 * session id cancels the session's current run.
 *
 * RAGFlow answers `{code: 0, data: true}` for any id: it raises a cancel flag for the id whether
 * or not a task has it, and leaves finished tasks alone. The envelope stays RAGFlow's; `message`
 * tells what happened: "success" only when a run of this tenant was running and got the cancel
 * signal. An unknown id and another tenant's id get the same answer (nothing shows of other
 * tenants); a run that already ended says so with its status.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { asBody, requireArguments } from '../ragflowArgs';
import { cancelRunById } from '../services/cancel';

export async function tasksPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const cancel = async (request: FastifyRequest, how: string) => {
    const { task_id } = request.params as { task_id: string };
    const run = (await deps.store.runs.get(request.tenantId, task_id)) ?? (await deps.store.runs.activeForSession(request.tenantId, task_id));
    if (!run) return { ...ragflowJson(true), message: `No task ${task_id} was found: nothing was canceled.` };
    if (await cancelRunById(deps, run, `canceled through ${how}`)) return ragflowJson(true);
    const ended = (await deps.store.runs.get(request.tenantId, run.id)) ?? run;
    return { ...ragflowJson(true), message: `Task ${task_id} had already ended (${ended.status}): nothing was canceled.` };
  };

  app.post(
    '/api/v1/tasks/:task_id/cancel',
    {
      config: { ragflow: true },
      schema: { tags: ['runs'], summary: 'Cancel a running task (run id or session id); message says whether anything was canceled' },
    },
    async (request) => cancel(request, '/tasks/{task_id}/cancel'),
  );

  app.patch(
    '/api/v1/tasks/:task_id',
    {
      config: { ragflow: true },
      schema: { tags: ['runs'], summary: 'Stop a running task: {"action": "stop"} (the only action); same answer as /cancel' },
    },
    async (request) => {
      const body = asBody(request.body);
      requireArguments(body, ['action']);
      if (body.action !== 'stop') {
        // Python's f-string rendering of the value, as RAGFlow's message has it.
        const shown = typeof body.action === 'string' ? body.action : body.action === null ? 'None' : JSON.stringify(body.action);
        throw new AppError('BAD_REQUEST', `Invalid action '${shown}'. Only 'stop' is supported.`);
      }
      return cancel(request, 'PATCH /tasks/{task_id}');
    },
  );
}
