/**
 * A form answer in a chat turn: a completion to a session whose run waits at a UserFillUp
 * resumes that run with the submitted `inputs` (RAGFlow's way to answer a form); one without
 * inputs gets the pending form again, as RAGFlow asks again. (`POST /runs/{id}/inputs` answers
 * through inputs.ts directly.)
 */
import type { EventCursor, RunRecord, SessionRecord } from '../../../src/io/store/contract';
import type { AppDeps } from '../../deps';
import { currentPause, submitRunInputs, waitsAtForm } from '../inputs';

/**
 * Where the reply to the session's paused run starts (exclusive), once answered or to show its
 * form again; null when the session's run (if any) does not wait at a form.
 */
export async function answerOrShowForm(
  deps: AppDeps,
  session: SessionRecord,
  active: RunRecord | null,
  t: { query: unknown; inputs: Record<string, unknown> | null },
): Promise<EventCursor | null> {
  const answers = t.inputs !== null && Object.keys(t.inputs).length > 0;
  // The workflow, not the row, says whether the run waits: a row may say running while it waits at a form.
  const waits = active?.status === 'paused' || (active?.status === 'running' && answers && (await waitsAtForm(deps, active)));
  if (!active || !waits) return null;
  const query = typeof t.query === 'string' ? t.query : t.query === null || t.query === undefined ? '' : JSON.stringify(t.query);
  if (answers) {
    const resumed = await submitRunInputs(deps, active, { inputs: t.inputs!, ...(query ? { query } : {}) });
    if (query) await deps.store.sessions.appendMessages(session.id, [{ role: 'user', content: query, created_at: Date.now() / 1000 }]);
    return resumed.after;
  }
  const pause = await currentPause(deps, active);
  return { seq: pause.seq - 1, sub: 2_147_483_647 };
}
