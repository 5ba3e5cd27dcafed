/**
 * A streaming completion shows its run's first event before the workflow starts (the run is
 * accepted once its rows are stored). When Temporal then refuses the start, the stream goes on to
 * run_failed and [DONE], and the turn leaves nothing behind: no user message, no lock, a failed run.
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
  it('streams workflow_started, then run_failed naming the refusal, and leaves the session free without the question', async () => {
    const echo = dsl({
      begin: { name: 'Begin', downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['got {sys.query}'] } },
    });
    const big = { ...echo, globals: { ...(echo.globals as Record<string, unknown>), 'env.padding': 'p'.repeat(2.5 * 1024 * 1024) } };
    const canvas = await h.store.canvases.create({ tenantId: TENANT, title: 'too big for Temporal', dsl: big });

    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: canvas.id, query: 'hello', stream: true } });
    const messages = parseSse(res.text);
    const events = messages.filter((m) => m.json).map((m) => m.json!);
    expect(events.map((e) => e.event)).toEqual(['workflow_started', 'run_failed']);
    expect(String((events[1]!.data as { error?: unknown }).error)).toContain('Could not start the run on Temporal');
    expect(messages.at(-1)?.data).toBe('[DONE]');

    const runId = String(events[0]!.task_id);
    const sessionId = String(events[0]!.session_id);
    expect(await h.store.runs.get(TENANT, runId)).toMatchObject({ status: 'failed' });
    const session = await h.store.sessions.get(TENANT, canvas.id, sessionId);
    expect(session?.active_run_id).toBeNull();
    expect(session?.messages.filter((m) => m.role === 'user')).toEqual([]);
  });
});
