/**
 * Multi-turn sessions over HTTP, as RAGFlow keeps them: the turn counter, the conversation
 * history (and the window a model sees of it), `sys.history` and memory carry from one run of a
 * session to the next; another session starts from scratch. Begin inputs are checked by type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import type { RecordedCall } from '../helpers/scriptedLlm';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };

async function turn(agentId: string, body: Record<string, unknown>) {
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, stream: true, ...body } });
  const events = parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
  return {
    events,
    sessionId: String(events[0]?.session_id ?? ''),
    text: events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join(''),
  };
}

describe('a three-turn session', () => {
  it('counts turns, keeps the history and shows the model only its window', async () => {
    const seen: RecordedCall[] = [];
    h.llm.whenPromptIncludes('MARK-turns', (call) => {
      seen.push(call);
      return { content: `A${seen.length}` };
    });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:chat'] },
      'LLM:chat': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-turns turn {sys.conversation_turns}; so far: {sys.history}', message_history_window_size: 1 },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{LLM:chat@content}'] } },
    });
    const agent = (await api(h, 'POST', '/api/v1/agents', { body: { title: `turns ${Date.now()}`, dsl: canvas } })).body as Envelope<{ id: string }>;
    const one = await turn(agent.data.id, { query: 'one' });
    const two = await turn(agent.data.id, { query: 'two', session_id: one.sessionId });
    const three = await turn(agent.data.id, { query: 'three', session_id: one.sessionId });
    expect([one.text, two.text, three.text]).toEqual(['A1', 'A2', 'A3']);

    const systemOf = (c: RecordedCall) => String(c.body.messages[0]!.content);
    expect(systemOf(seen[0]!)).toBe('MARK-turns turn 1; so far: ["user: one"]');
    expect(systemOf(seen[2]!)).toBe('MARK-turns turn 3; so far: ["user: one", "assistant: A1", "user: two", "assistant: A2", "user: three"]');
    // A window of one exchange: the previous answer, then the current question.
    expect(seen[0]!.body.messages.slice(1)).toEqual([{ role: 'user', content: 'one' }]);
    expect(seen[2]!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'A2' },
      { role: 'user', content: 'three' },
    ]);

    const session = (await api(h, 'GET', `/api/v1/agents/${agent.data.id}/sessions/${one.sessionId}`)).body as Envelope<{
      message: Array<{ role: string; content: string }>;
    }>;
    expect(session.data.message.map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:one',
      'assistant:A1',
      'user:two',
      'assistant:A2',
      'user:three',
      'assistant:A3',
    ]);

    // A new session starts over.
    const fresh = await turn(agent.data.id, { query: 'hello' });
    expect(fresh.sessionId).not.toBe(one.sessionId);
    expect(systemOf(seen[3]!)).toBe('MARK-turns turn 1; so far: ["user: hello"]');
  });
});

describe('Begin inputs', () => {
  it('refuses inputs of the wrong type, naming the field, and runs with good ones', async () => {
    const canvas = dsl({
      begin: {
        name: 'Begin',
        params: { mode: 'task', inputs: { age: { type: 'integer', optional: false }, city: { type: 'options', options: ['Oslo', 'Lima'], optional: true } } },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{begin@age} in {begin@city}'] } },
    });
    const agent = (await api(h, 'POST', '/api/v1/agents', { body: { title: `begin inputs ${Date.now()}`, dsl: canvas } })).body as Envelope<{ id: string }>;
    const bad = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agent.data.id, stream: false, inputs: { age: { value: 'old' }, city: { value: 'Rome' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 101,
      data: {
        errors: [
          { path: '$.inputs.age', message: 'must be a number, got "old"' },
          { path: '$.inputs.city', message: expect.stringContaining('must be one of "Oslo", "Lima"') },
        ],
      },
    });
    const good = await turn(agent.data.id, { inputs: { age: { value: 41 }, city: { value: 'Lima' } } });
    expect(good.text).toBe('41 in Lima');
  });
});
