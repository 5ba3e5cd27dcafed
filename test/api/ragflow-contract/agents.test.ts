/**
 * RAGFlow's own REST contract tests for agents (infiniflow/ragflow
 * test/testcases/restful_api/test_agents.py), restated against our API over real HTTP: same
 * requests, same envelope, codes and messages; plus the agent routes those tests reach
 * (the support routes, webhook logs, test_db_connection, rerun, the older completion route,
 * `return_trace`, paging, unknown ids) are in agentRoutes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../../helpers/appHarness';
import { agentMaker, MINIMAL_DSL, type Envelope } from './agentKit';

let h: Harness;
const { createAgent, createSession, cleanup } = agentMaker(() => h);

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await cleanup();
  await h?.close();
});

describe('RAGFlow REST contract: agents', () => {
  it('test_agents_crud_validation_contract', async () => {
    const listEmpty = await api(h, 'GET', '/api/v1/agents?title=missing_restful_agent');
    expect(listEmpty.status).toBe(200);
    const listEmptyPayload = listEmpty.body as Envelope & { data: Record<string, unknown> };
    expect(listEmptyPayload.code).toBe(0);
    expect(listEmptyPayload.data).toHaveProperty('canvas');
    expect(listEmptyPayload.data).toHaveProperty('total');

    const paged = await api(h, 'GET', '/api/v1/agents?title=missing_restful_agent&desc=true&page_size=1');
    expect((paged.body as Envelope).code).toBe(0);

    const missingDsl = await api(h, 'POST', '/api/v1/agents', { body: { title: 'missing_dsl_agent' } });
    expect(missingDsl.status).toBe(200);
    expect((missingDsl.body as Envelope).code).toBe(101);
    expect((missingDsl.body as Envelope).message!.toLowerCase()).toContain('no dsl data in request');

    const missingTitle = await api(h, 'POST', '/api/v1/agents', { body: { dsl: MINIMAL_DSL } });
    expect(missingTitle.status).toBe(200);
    expect((missingTitle.body as Envelope).code).toBe(101);
    expect((missingTitle.body as Envelope).message!.toLowerCase()).toContain('no title in request');

    const agentId = await createAgent('restful_agent_crud');

    const duplicate = await api(h, 'POST', '/api/v1/agents', { body: { title: 'restful_agent_crud', dsl: MINIMAL_DSL } });
    expect(duplicate.status).toBe(200);
    expect((duplicate.body as Envelope).code).toBe(102);
    expect((duplicate.body as Envelope).message).toContain('already exists');

    const invalidUpdate = await api(h, 'PUT', '/api/v1/agents/invalid-agent-id', { body: { title: 'updated', dsl: MINIMAL_DSL } });
    expect(invalidUpdate.status).toBe(200);
    expect((invalidUpdate.body as Envelope).code).toBe(103);
    expect((invalidUpdate.body as Envelope).message).toContain('Make sure you have permission to access the agent.');

    const got = await api(h, 'GET', `/api/v1/agents/${agentId}`);
    expect((got.body as Envelope).code).toBe(0);
    expect(((got.body as Envelope).data as { id: string }).id).toBe(agentId);

    const updated = await api(h, 'PUT', `/api/v1/agents/${agentId}`, { body: { title: 'restful_agent_crud_updated', dsl: MINIMAL_DSL } });
    expect((updated.body as Envelope).code).toBe(0);

    const listAfter = await api(h, 'GET', '/api/v1/agents?title=restful_agent_crud_updated');
    expect((listAfter.body as Envelope).code).toBe(0);
    expect(((listAfter.body as Envelope).data as { total: number }).total).toBeGreaterThanOrEqual(1);

    const invalidDelete = await api(h, 'DELETE', '/api/v1/agents/invalid-agent-id');
    expect(invalidDelete.status).toBe(200);
    expect((invalidDelete.body as Envelope).code).toBe(103);
    const msg = (invalidDelete.body as Envelope).message!;
    expect(msg.includes('Only the owner of the agent is authorized') || msg.includes('Make sure you have permission')).toBe(true);

    const deleted = await api(h, 'DELETE', `/api/v1/agents/${agentId}`);
    expect((deleted.body as Envelope).code).toBe(0);
    expect((deleted.body as Envelope).data).toBe(true);
  });

  it('test_agent_sessions_crud', async () => {
    const agentId = await createAgent('restful_agent_sessions');
    const sessionId = await createSession(agentId, 'agent_session_1');
    const list = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions`);
    const listPayload = list.body as Envelope & { data: Array<{ id: string }> };
    expect(listPayload.code).toBe(0);
    expect(Array.isArray(listPayload.data)).toBe(true);
    expect(listPayload.data.some((s) => s.id === sessionId)).toBe(true);
    const got = await api(h, 'GET', `/api/v1/agents/${agentId}/sessions/${sessionId}`);
    expect((got.body as Envelope).code).toBe(0);
    expect(((got.body as Envelope).data as { id: string }).id).toBe(sessionId);
    const deleted = await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions/${sessionId}`);
    expect((deleted.body as Envelope).code).toBe(0);
  });

  it('test_agent_chat_completion_validation', async () => {
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { query: 'hello', stream: false } });
    expect(res.status).toBe(200);
    expect((res.body as Envelope).code).toBe(101);
    expect((res.body as Envelope).message).toContain('`agent_id` is required.');
  });

  it('test_agent_chat_completion_nonstream', async () => {
    const agentId = await createAgent('restful_agent_nonstream');
    const sessionId = await createSession(agentId, 'agent_completion_session');
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'hello', stream: false, session_id: sessionId } });
    expect(res.status).toBe(200);
    const payload = res.body as Envelope & { data: { session_id: string; data: { content: string } } };
    expect(payload.code, JSON.stringify(payload)).toBe(0);
    expect(payload.data.session_id).toBe(sessionId);
    expect(typeof payload.data.data).toBe('object');
    expect(payload.data.data.content).toContain('hello');
  });

  it('test_agent_chat_completion_stream_structure_and_done', async () => {
    const agentId = await createAgent('restful_agent_stream');
    const sessionId = await createSession(agentId, 'agent_stream_session');
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, query: 'hello', stream: true, session_id: sessionId, return_trace: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(res.text).map((m) => m.data);
    expect(events.length).toBeGreaterThan(0);
    expect(events.at(-1)!.trim()).toBe('[DONE]');
    const jsonEvents = events.filter((e) => e.trim() !== '[DONE]').map((e) => JSON.parse(e) as unknown);
    expect(jsonEvents.length).toBeGreaterThan(0);
    expect(jsonEvents.some((e) => typeof e === 'object' && e !== null)).toBe(true);
  });

  it('test_agent_openai_compatible_mode', async () => {
    const agentId = await createAgent('restful_agent_openai_compat');
    const missing = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, 'openai-compatible': true, model: 'model', messages: [] },
    });
    expect(missing.status).toBe(200);
    expect((missing.body as Envelope).code).toBe(102);
    expect((missing.body as Envelope).message).toContain('at least one message');

    const nonstream = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, 'openai-compatible': true, model: 'model', messages: [{ role: 'user', content: 'hello' }], stream: false },
    });
    expect(nonstream.status).toBe(200);
    const payload = nonstream.body as { object: string; choices: Array<{ message: { content: string } }> };
    expect(payload.object).toBe('chat.completion');
    expect(payload.choices[0]!.message.content).toBe('hello');

    const stream = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, 'openai-compatible': true, model: 'model', messages: [{ role: 'user', content: 'hello' }], stream: true },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const chunks = parseSse(stream.text);
    expect(chunks.at(-1)!.data).toBe('[DONE]');
    expect(
      chunks
        .filter((c) => c.json)
        .map((c) => (c.json!.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content ?? '')
        .join(''),
    ).toBe('hello');
  });
});
