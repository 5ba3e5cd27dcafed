/**
 * `POST /api/v1/tasks/{task_id}/cancel` (RAGFlow). A task id is a run id; as in RAGFlow (where a
 * canvas task id is the session id) a session id cancels the session's current run. Like RAGFlow,
 * the reply is `data: true` whether or not something was running.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { cancelRunById } from '../services/cancel';

export async function tasksPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post('/api/v1/tasks/:task_id/cancel', { config: { ragflow: true }, schema: { tags: ['runs'], summary: 'Cancel a running task (run id or session id)' } }, async (request) => {
    const { task_id } = request.params as { task_id: string };
    const run = (await deps.store.runs.get(request.tenantId, task_id)) ?? (await deps.store.runs.activeForSession(request.tenantId, task_id));
    if (run) await cancelRunById(deps, run, 'canceled through /tasks/{task_id}/cancel');
    return ragflowJson(true);
  });
}
