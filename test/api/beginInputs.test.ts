/**
 * Required Begin inputs over HTTP: a session's first turn without a required field, with a blank
 * one or with a value of the wrong type is refused on RAGFlow's completion route and on our
 * /runs route, each field named as `$.inputs.<name>`, and nothing is started (no session, no run).
 * Later turns of a session need no inputs, as in RAGFlow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };
type Problem = { path: string; message: string };

const briefing = () =>
  dsl({
    begin: {
      name: 'Begin',
      params: {
        inputs: {
          topic: { name: 'Topic', type: 'line', optional: false },
          notes: { name: 'Notes', type: 'paragraph', optional: true },
          tone: { name: 'Tone', type: 'options', options: ['formal', 'casual'], optional: false },
        },
      },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['{begin@topic} ({begin@tone}): {sys.query}'] } },
  });

async function createAgent(title: string): Promise<string> {
  const res = (await api(h, 'POST', '/api/v1/agents', { body: { title: `${title} ${Date.now()}`, dsl: briefing() } })).body as Envelope<{ id: string }>;
  expect(res.code, JSON.stringify(res)).toBe(0);
  return res.data.id;
}

async function nothingStarted(agentId: string): Promise<void> {
  const runs = (await api(h, 'GET', `/api/v1/runs?canvas_id=${agentId}`)).body as { total: number };
  expect(runs.total).toBe(0);
  const sessions = (await api(h, 'GET', `/api/v1/agents/${agentId}/sessions`)).body as Envelope<unknown[]>;
  expect(sessions.data).toEqual([]);
}

async function turnText(body: Record<string, unknown>): Promise<{ text: string; sessionId: string }> {
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { stream: true, ...body } });
  expect(res.status, res.text).toBe(200);
  const events = parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
  expect(events.map((e) => e.event)).toContain('workflow_finished');
  const text = events
    .filter((e) => e.event === 'message')
    .map((e) => (e.data as { content: string }).content)
    .join('');
  return { text, sessionId: String(events[0]?.session_id ?? '') };
}

describe('on RAGFlow’s completion route', () => {
  it('refuses a first turn without the required fields, naming each, and starts nothing', async () => {
    const agentId = await createAgent('begin required ragflow');
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'go', stream: true } });
    expect(res.status).toBe(400);
    const body = res.body as Envelope<{ errors: Problem[] }>;
    expect(body.code).toBe(101);
    expect(body.message).toBe('Invalid inputs: topic: is required; tone: is required');
    expect(body.data.errors).toEqual([
      { path: '$.inputs.topic', message: 'is required' },
      { path: '$.inputs.tone', message: 'is required' },
    ]);
    await nothingStarted(agentId);
  });

  it('refuses a blank required field, a number for a paragraph and a value that is not an option', async () => {
    const agentId = await createAgent('begin types ragflow');
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, stream: false, inputs: { topic: { type: 'line', value: '  ' }, notes: { value: 12 }, tone: { value: 'angry' } } },
    });
    expect(res.status).toBe(400);
    expect((res.body as Envelope<{ errors: Problem[] }>).data.errors).toEqual([
      { path: '$.inputs.topic', message: 'is required' },
      { path: '$.inputs.notes', message: 'must be text, got 12' },
      { path: '$.inputs.tone', message: 'must be one of "formal", "casual", got "angry"' },
    ]);
    await nothingStarted(agentId);
  });

  it('asks for the form when a session made on the sessions route has its first turn, and not on later turns', async () => {
    const agentId = await createAgent('begin session');
    const session = (await api(h, 'POST', `/api/v1/agents/${agentId}/sessions`, { body: {} })).body as Envelope<{ id: string }>;
    const refused = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, session_id: session.data.id, query: 'go' } });
    expect(refused.status).toBe(400);
    expect((refused.body as Envelope<{ errors: Problem[] }>).data.errors.map((p) => p.path)).toEqual(['$.inputs.topic', '$.inputs.tone']);

    const first = await turnText({
      agent_id: agentId,
      session_id: session.data.id,
      query: 'first',
      inputs: { topic: { value: 'Tides' }, tone: { value: 'casual' } },
    });
    expect(first.text).toBe('Tides (casual): first');
    // The next turn sends only its question, as RAGFlow's chat does.
    const second = await turnText({ agent_id: agentId, session_id: session.data.id, query: 'second' });
    expect(second.text).toContain('second');
  });
});

describe('on our /runs route', () => {
  it('answers 400 with each field’s path, and starts nothing', async () => {
    const agentId = await createAgent('begin required runs');
    const missing = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: 'go' } });
    expect(missing.status).toBe(400);
    expect((missing.body as { errors: Problem[] }).errors).toEqual([
      { path: '$.inputs.topic', message: 'is required' },
      { path: '$.inputs.tone', message: 'is required' },
    ]);
    const wrong = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: 'go', inputs: { topic: 7, tone: 'formal', notes: '' } } });
    expect(wrong.status).toBe(400);
    expect((wrong.body as { errors: Problem[] }).errors).toEqual([{ path: '$.inputs.topic', message: 'must be text, got 7' }]);
    await nothingStarted(agentId);

    const started = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: 'go', inputs: { topic: 'Tides', tone: 'formal' } } });
    expect(started.status, started.text).toBe(202);
  });
});
