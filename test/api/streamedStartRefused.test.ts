/**
 * A streaming completion announces its run (event 1, `workflow_started` with the task id) only
 * once Temporal accepted the run's workflow (issue 38: a client must never hold the id of a run
 * that did not start). When Temporal refuses the start, the stream carries the error, RAGFlow's
 * way (`{code, message, data: false}`), then [DONE], and the turn leaves nothing behind: no user
 * message, no lock, a failed run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN_INPUT_LIMITS } from '../../api/services/runLimits';
import { api, parseSse, startHarness, TENANT, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
beforeAll(async () => {
  // Our DSL limit lifted, so the start reaches Temporal, whose payload limit (2 MB) refuses it.
  h = await startHarness({ runInputLimits: { ...DEFAULT_RUN_INPUT_LIMITS, dslBytes: 1e9 } });
});
afterAll(async () => h?.close());

describe('a streamed start Temporal refuses', () => {
  it('streams the refusal as an error with no task id, and leaves the session free without the question', async () => {
    const echo = dsl({
      begin: { name: 'Begin', downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['got {sys.query}'] } },
    });
    const big = { ...echo, globals: { ...(echo.globals as Record<string, unknown>), 'env.padding': 'p'.repeat(2.5 * 1024 * 1024) } };
    const canvas = await h.store.canvases.create({ tenantId: TENANT, title: 'too big for Temporal', dsl: big });

    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: canvas.id, query: 'hello', stream: true } });
    const messages = parseSse(res.text);
    const payloads = messages.filter((m) => m.json).map((m) => m.json!);
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatchObject({ code: 100, data: false });
    expect(String(payloads[0]!.message)).toContain('Could not start the run on Temporal');
    expect(messages.at(-1)?.data).toBe('[DONE]');

    const runs = await h.store.runIndex.list(TENANT, { canvasId: canvas.id, page: 1, pageSize: 10 });
    expect(runs.items.map((r) => r.status)).toEqual(['failed']);
    const sessions = await h.store.sessions.list(TENANT, canvas.id, { page: 1, pageSize: 10, orderby: 'create_time', desc: true });
    expect(sessions.items).toHaveLength(1);
    expect(sessions.items[0]!.active_run_id).toBeNull();
    expect(sessions.items[0]!.messages.filter((m) => m.role === 'user')).toEqual([]);
  });
});
