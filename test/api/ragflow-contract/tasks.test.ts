/**
 * RAGFlow's task routes (api/apps/restful_apis/task_api.py; its REST tests
 * restful_api/test_task_routes.py): `POST /tasks/{id}/cancel` and `PATCH /tasks/{id}` with
 * `{action: "stop"}`, restated against our API over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';
import type { Envelope } from './agentKit';

let h: Harness;

const SLOW_DSL = {
  components: {
    begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['LLM:slow'], upstream: [] },
    'LLM:slow': { obj: { component_name: 'LLM', params: { llm_id: 'x@OpenAI', sys_prompt: 'Slow task model.' } }, downstream: [], upstream: ['begin'] },
  },
  history: [],
  retrieval: [],
  path: [],
  globals: { 'sys.query': '', 'sys.user_id': '', 'sys.conversation_turns': 0, 'sys.files': [] },
  variables: {},
};

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('RAGFlow REST contract: tasks', () => {
  it('test_task_routes_require_auth: both routes answer 401 {code: 401} without a key', async () => {
    const cancel = await api(h, 'POST', '/api/v1/tasks/missing_task/cancel', { key: null, raw: '', headers: { 'content-type': 'application/json' } });
    expect(cancel.status).toBe(401);
    expect((cancel.body as Envelope).code).toBe(401);
    const patch = await api(h, 'PATCH', '/api/v1/tasks/missing_task', { key: null, body: { action: 'stop' } });
    expect(patch.status).toBe(401);
    expect((patch.body as Envelope).code).toBe(401);
  });

  it('test_patch_task_rejects_unsupported_action: code 101 with RAGFlow’s wording', async () => {
    const res = await api(h, 'PATCH', '/api/v1/tasks/missing_task', { body: { action: 'pause' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 101, message: "Invalid action 'pause'. Only 'stop' is supported." });
    const none = await api(h, 'PATCH', '/api/v1/tasks/missing_task', { body: { action: null } });
    expect(none.body).toMatchObject({ code: 101, message: "Invalid action 'None'. Only 'stop' is supported." });
  });

  it('PATCH without an action is RAGFlow’s "required argument are missing: action; "', async () => {
    for (const opts of [{ body: {} }, { raw: '', headers: { 'content-type': 'application/json' } }]) {
      const res = await api(h, 'PATCH', '/api/v1/tasks/missing_task', opts);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ code: 101, message: 'required argument are missing: action; ' });
    }
  });

  it('test_cancel_missing_task_sets_cancel_contract: an unknown task is {code: 0, data: true}, body-less with a JSON content type', async () => {
    const res = await api(h, 'POST', '/api/v1/tasks/missing_task/cancel', { raw: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0, data: true });
    const patched = await api(h, 'PATCH', '/api/v1/tasks/missing_task', { body: { action: 'stop' } });
    expect(patched.body).toMatchObject({ code: 0, data: true });
  });

  it('PATCH {action: "stop"} stops a running task, by run id or by session id; another tenant’s task is left alone', async () => {
    h.llm.whenPromptIncludes('Slow task model.', { content: 'slow answer', delayMs: 3_000 });
    const agent = await api(h, 'POST', '/api/v1/agents', { body: { title: 'task contract slow', dsl: SLOW_DSL } });
    const agentId = (agent.body as { data: { id: string } }).data.id;
    const session = await api(h, 'POST', `/api/v1/agents/${agentId}/sessions`, { body: {} });
    const sessionId = (session.body as { data: { id: string } }).data.id;

    for (const by of ['run', 'session'] as const) {
      const turn = api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, session_id: sessionId, query: `q ${by}`, stream: false } });
      let runId: string | undefined;
      for (let i = 0; i < 100 && !runId; i++) {
        runId = (await h.store.runs.activeForSession('tenant-a', sessionId))?.id;
        if (!runId) await new Promise((r) => setTimeout(r, 50));
      }
      expect(runId).toBeDefined();
      const target = by === 'run' ? runId! : sessionId;
      const foreign = await api(h, 'PATCH', `/api/v1/tasks/${target}`, { key: h.otherKey, body: { action: 'stop' } });
      expect(foreign.body).toMatchObject({ code: 0, data: true });
      expect((foreign.body as Envelope).message).toContain('nothing was canceled');
      const stopped = await api(h, 'PATCH', `/api/v1/tasks/${target}`, { body: { action: 'stop' } });
      expect(stopped.body).toEqual({ code: 0, message: 'success', data: true });
      await turn;
      expect((await h.store.runs.get('tenant-a', runId!))?.status).toBe('canceled');
      const again = await api(h, 'PATCH', `/api/v1/tasks/${runId}`, { body: { action: 'stop' } });
      expect(again.body).toMatchObject({ code: 0, data: true, message: expect.stringContaining('already ended (canceled)') });
    }
  });
});
