/**
 * A session read as a conversation (`GET /api/v1/agents/{id}/sessions/{sid}/turns`): the prologue
 * as its greeting, each turn's question, answer and the run that answered it, in order, with the
 * files the question sent; another tenant and an unknown session get 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { createAgent } from '../ui/kit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => h?.close());

interface Turn {
  message_id: string;
  question: { content: string; files: unknown[] } | null;
  answer: { content: string } | null;
  references: unknown[];
  run: { task_id: string; status: string } | null;
}
interface Conversation {
  id: string;
  greeting: string[];
  turns: Turn[];
  active_run_id: string | null;
  omitted: number;
}

async function finished(runId: string): Promise<void> {
  await expect
    .poll(async () => ((await api(h, 'GET', `/api/v1/runs/${runId}`)).body as { status?: string }).status, { timeout: 60_000, interval: 250 })
    .toBe('finished');
}

describe('session turns', () => {
  it('reads a session as its greeting and turns, each with the run that answered it', async () => {
    const agentId = await createAgent(
      h,
      'echo',
      dsl({
        begin: { name: 'Begin', params: { prologue: 'Hello, ask me.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['You said {sys.query}'] } },
      }),
    );
    const created = (await api(h, 'POST', `/api/v1/agents/${agentId}/sessions`, { body: {} })).body as { data: { id: string } };
    const sessionId = created.data.id;
    const runIds: string[] = [];
    for (const query of ['one', 'two']) {
      const res = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query, session_id: sessionId } });
      expect(res.status, res.text).toBe(202);
      const runId = (res.body as { task_id: string }).task_id;
      runIds.push(runId);
      await finished(runId);
    }

    const res = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions/${sessionId}/turns`);
    expect(res.status, res.text).toBe(200);
    const c = res.body as Conversation;
    expect(c).toMatchObject({ id: sessionId, greeting: ['Hello, ask me.'], active_run_id: null, omitted: 0 });
    expect(c.turns.map((t) => [t.question?.content, t.answer?.content, t.run?.task_id, t.run?.status])).toEqual([
      ['one', 'You said one', runIds[0], 'finished'],
      ['two', 'You said two', runIds[1], 'finished'],
    ]);
    expect(c.turns.every((t) => Array.isArray(t.question?.files) && t.references.length === 0)).toBe(true);

    const theirs = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions/${sessionId}/turns`, { key: h.otherKey });
    expect(theirs.status).toBe(404);
    const unknown = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions/no-such-session/turns`);
    expect(unknown.status).toBe(404);
  });
});
