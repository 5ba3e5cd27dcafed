/**
 * RAGFlow's agent-session routes (api/apps/restful_apis/agent_api.py; its REST tests
 * test_http_api/test_session_management/test_agent_sessions.py and test_agent_completions.py, and
 * the `delete_all_agent_sessions` fixture they share), restated against our API over real HTTP:
 * creation, paging, delete semantics (`ids`, `ids: null`, `delete_all`, duplicates, unknown ids),
 * and a session whose streamed turn was abandoned answering its next question.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, streamSse, type Harness } from '../../helpers/appHarness';
import { MINIMAL_DSL } from './agentKit';

function llmDsl(prompt: string) {
  return {
    ...MINIMAL_DSL,
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['LLM:a'], upstream: [] },
      'LLM:a': { obj: { component_name: 'LLM', params: { llm_id: 'x@OpenAI', sys_prompt: prompt } }, downstream: ['Message:out'], upstream: ['begin'] },
      'Message:out': { obj: { component_name: 'Message', params: { content: ['{LLM:a@content}'] } }, downstream: [], upstream: ['LLM:a'] },
    },
  };
}

type Envelope = { code: number; message?: string; data?: unknown; total?: number };

let h: Harness;
let agentId: string;

beforeAll(async () => {
  h = await startHarness();
  agentId = await createAgent('session contract agent', MINIMAL_DSL);
});

afterAll(async () => {
  await h?.close();
});

async function createAgent(title: string, dsl: unknown): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title, dsl } });
  expect((res.body as Envelope).code, res.text).toBe(0);
  return (res.body as { data: { id: string } }).data.id;
}

async function seed(n: number, prefix: string, agent = agentId): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api(h, 'POST', `/api/v1/agents/${agent}/sessions`, { body: { name: `${prefix}_${i}` } });
    expect((res.body as Envelope).code, res.text).toBe(0);
    ids.push((res.body as { data: { id: string } }).data.id);
  }
  return ids;
}

async function remaining(agent = agentId): Promise<string[]> {
  const res = await api(h, 'GET', `/api/v1/agents/${agent}/sessions?page_size=100&dsl=false`);
  return ((res.body as { data: Array<{ id: string }> }).data ?? []).map((s) => s.id);
}

async function clear(agent = agentId): Promise<void> {
  const res = await api(h, 'DELETE', `/api/v1/agents/${agent}/sessions`, { body: { ids: null, delete_all: true } });
  expect((res.body as Envelope).code).toBe(0);
}

describe('RAGFlow REST contract: agent sessions', () => {
  it('creates a session with a body-less POST (JSON content type) and with {}', async () => {
    for (const opts of [{ raw: '', headers: { 'content-type': 'application/json' } }, { body: {} }]) {
      const res = await api(h, 'POST', `/api/v1/agents/${agentId}/sessions`, opts);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ code: 0, data: { agent_id: agentId, name: '' } });
    }
    await clear();
  });

  it('lists with RAGFlow’s paging: bad page and page_size fall back to the defaults, over 100 is refused', async () => {
    await seed(3, 'paging');
    for (const q of ['page=0', 'page=-1', 'page=a', 'page_size=0', 'page_size=a', 'page_size=-3', 'desc=unknown']) {
      const res = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions?${q}`);
      expect(res.body, q).toMatchObject({ code: 0, total: 3 });
      expect((res.body as { data: unknown[] }).data, q).toHaveLength(3);
    }
    const page2 = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions?page=2&page_size=2`);
    expect((page2.body as { data: unknown[] }).data).toHaveLength(1);
    const tooBig = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions?page_size=101`);
    expect(tooBig.status).toBe(200);
    expect(tooBig.body).toMatchObject({ code: 100, message: expect.stringContaining('page_size must be less than or equal to 100') });
    await clear();
  });

  it('delete: no body, {}, ids null or [] without delete_all delete nothing and say success', async () => {
    const ids = await seed(2, 'noop');
    for (const opts of [
      { raw: '', headers: { 'content-type': 'application/json' } },
      { body: {} },
      { body: { ids: null } },
      { body: { ids: [] } },
      { body: { ids: null, delete_all: false } },
    ]) {
      const res = await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions`, opts);
      expect(res.status).toBe(200);
      expect(res.body, JSON.stringify(opts)).toEqual({ code: 0 });
      expect((await remaining()).sort()).toEqual([...ids].sort());
    }
    await clear();
  });

  it('delete: {ids: null, delete_all: true} deletes every session of the agent (and only of that agent)', async () => {
    const otherAgent = await createAgent('session contract other agent', MINIMAL_DSL);
    await seed(3, 'all');
    const kept = await seed(1, 'kept', otherAgent);
    const res = await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions`, { body: { ids: null, delete_all: true } });
    expect(res.body).toEqual({ code: 0 });
    expect(await remaining()).toEqual([]);
    expect(await remaining(otherAgent)).toEqual(kept);
    // Nothing left: still success.
    expect((await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions`, { body: { delete_all: true } })).body).toEqual({ code: 0 });
  });

  it('delete by ids: all, partial with an unknown id, only unknown ids, duplicates', async () => {
    let ids = await seed(3, 'byid');
    expect((await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions`, { body: { ids } })).body).toEqual({ code: 0 });
    expect(await remaining()).toEqual([]);

    ids = await seed(2, 'partial');
    const partial = await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions`, { body: { ids: ['invalid_id', ...ids] } });
    expect(partial.body).toEqual({ code: 0, data: { success_count: 2, errors: ["The agent doesn't own the session invalid_id"] } });

    const unknown = await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions`, { body: { ids: ['invalid_id'] } });
    expect(unknown.body).toEqual({ code: 102, message: "The agent doesn't own the session invalid_id" });

    ids = await seed(1, 'dup');
    const dup = await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions`, { body: { ids: [ids[0], ids[0]] } });
    expect(dup.body).toEqual({ code: 0, data: { success_count: 1, errors: [`Duplicate session ids: ${ids[0]}`] } });
    expect(await remaining()).toEqual([]);
  });

  it('an unknown or another tenant’s agent is code 103, on every session route', async () => {
    const [sid] = await seed(1, 'foreign');
    for (const [key, agent] of [
      [h.key, 'invalid-agent-id'],
      [h.otherKey, agentId],
    ] as const) {
      for (const [method, path, body] of [
        ['GET', `/api/v1/agents/${agent}/sessions`, undefined],
        ['POST', `/api/v1/agents/${agent}/sessions`, {}],
        ['GET', `/api/v1/agents/${agent}/sessions/${sid}`, undefined],
        ['DELETE', `/api/v1/agents/${agent}/sessions/${sid}`, undefined],
        ['DELETE', `/api/v1/agents/${agent}/sessions`, { ids: [sid] }],
      ] as const) {
        const res = await api(h, method, path, { key, ...(body ? { body } : {}) });
        expect(res.status).toBe(200);
        expect(res.body, `${method} ${path}`).toMatchObject({ code: 103, message: 'Make sure you have permission to access the agent.' });
      }
    }
    expect(await remaining()).toEqual([sid]);
    await clear();
  });

  it('an unknown session is code 102 "Session not found!" (get, delete, completion)', async () => {
    expect((await api(h, 'GET', `/api/v1/agents/${agentId}/sessions/missing`)).body).toMatchObject({ code: 102, message: 'Session not found!' });
    expect((await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions/missing`)).body).toMatchObject({ code: 102, message: 'Session not found!' });
    const turn = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, session_id: 'missing', query: 'hi', stream: false } });
    expect(turn.body).toMatchObject({ code: 102, message: 'Session not found!' });
  });

  it('test_agent_completion_stream_false: a turn of a session made with {} answers the query', async () => {
    const created = await api(h, 'POST', `/api/v1/agents/${agentId}/sessions`, { body: {} });
    const sessionId = (created.body as { data: { id: string } }).data.id;
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'hello', stream: false, session_id: sessionId } });
    expect(res.body).toMatchObject({ code: 0, data: { session_id: sessionId, data: { content: expect.stringContaining('hello') } } });
    await clear();
  });

  it('a turn whose stream the client abandoned does not block the session: the next question is answered', async () => {
    // The first question's answer is slow; the next one's is at once.
    h.llm.whenPromptIncludes('Abandoned stream model.', (call) =>
      JSON.stringify(call.body.messages).includes('second') ? { content: 'second answer' } : { content: 'a long answer nobody reads', delayMs: 20_000 },
    );
    const slow = await createAgent('session contract abandoned', llmDsl('Abandoned stream model.'));
    const created = await api(h, 'POST', `/api/v1/agents/${slow}/sessions`, { body: {} });
    const sessionId = (created.body as { data: { id: string } }).data.id;

    // The client reads the first event, then goes away.
    const seen = await streamSse(
      `${h.base}/api/v1/agents/chat/completions`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: slow, session_id: sessionId, query: 'first', stream: true }),
      },
      () => true,
    );
    expect(seen.length).toBe(1);
    const first = (await h.store.runs.activeForSession('tenant-a', sessionId))!;
    expect(first.status).toBe('running');

    // The next question takes the session over.
    const started = Date.now();
    const next = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: slow, session_id: sessionId, query: 'second', stream: true } });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(next.headers.get('content-type'), next.text).toContain('text/event-stream');
    const events = parseSse(next.text);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const content = events
      .map((m) => m.json)
      .filter((j) => j?.event === 'message')
      .map((j) => (j!.data as { content: string }).content)
      .join('');
    expect(content).toBe('second answer');
    expect((await h.store.runs.get('tenant-a', first.id))?.status).toBe('canceled');
    const session = await api(h, 'GET', `/api/v1/agents/${slow}/sessions/${sessionId}`);
    const messages = (session.body as { data: { message: Array<{ role: string; content: string }> } }).data.message;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'second answer' });
  });

  it('a turn a client is still reading keeps the session: the next question is told the session is busy', async () => {
    // Longer than the next question's grace for a dropped follower (2 s): still running when it is answered.
    h.llm.whenPromptIncludes('Followed stream model.', { content: 'read to the end', delayMs: 4_000 });
    const slow = await createAgent('session contract followed', llmDsl('Followed stream model.'));
    const created = await api(h, 'POST', `/api/v1/agents/${slow}/sessions`, { body: {} });
    const sessionId = (created.body as { data: { id: string } }).data.id;
    const reading = api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: slow, session_id: sessionId, query: 'one', stream: true } });
    for (let i = 0; i < 100 && !(await h.store.runs.activeForSession('tenant-a', sessionId)); i++) await new Promise((r) => setTimeout(r, 50));
    const second = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: slow, session_id: sessionId, query: 'two', stream: false } });
    expect(second.body).toMatchObject({ code: 102, message: expect.stringMatching(/already has a run in progress/) });
    const firstText = (await reading).text;
    expect(firstText).toContain('read to the end');
    expect(parseSse(firstText).at(-1)!.data).toBe('[DONE]');
  });
});
