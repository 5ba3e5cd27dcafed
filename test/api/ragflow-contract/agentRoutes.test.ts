/**
 * The agent routes RAGFlow's REST contract tests for agents (test_agents.py) reach beyond CRUD,
 * sessions and completions (agents.test.ts): prompts, templates, versions and logs, webhook logs,
 * test_db_connection, rerun, the older completion route, `return_trace`, paging and unknown ids,
 * from RAGFlow's api/apps/restful_apis/agent_api.py, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../../helpers/appHarness';
import { agentMaker, MINIMAL_DSL, type Envelope } from './agentKit';

let h: Harness;
const { createAgent, createSession, adopt, cleanup } = agentMaker(() => h);

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await cleanup();
  await h?.close();
});

describe('RAGFlow REST contract: agent routes', () => {
  it('test_agent_support_routes_auth_and_contracts', async () => {
    const unauth = await api(h, 'GET', '/api/v1/agents/prompts', { key: null });
    expect(unauth.status).toBe(401);
    expect((unauth.body as Envelope).code).toBe(401);

    const prompts = await api(h, 'GET', '/api/v1/agents/prompts');
    const promptsPayload = prompts.body as Envelope & { data: Record<string, string> };
    expect(promptsPayload.code).toBe(0);
    expect(promptsPayload.data).toHaveProperty('task_analysis');
    expect(promptsPayload.data).toHaveProperty('citation_guidelines');

    const templates = await api(h, 'GET', '/api/v1/agents/templates');
    expect((templates.body as Envelope).code).toBe(0);
    expect(Array.isArray((templates.body as Envelope).data)).toBe(true);

    const agentId = await createAgent('restful_agent_support');
    const versions = await api(h, 'GET', `/api/v1/agents/${agentId}/versions`);
    expect((versions.body as Envelope).code).toBe(0);
    expect(Array.isArray((versions.body as Envelope).data)).toBe(true);

    const logs = await api(h, 'GET', `/api/v1/agents/${agentId}/logs/missing_message`);
    expect((logs.body as Envelope).code).toBe(0);
    expect(typeof (logs.body as Envelope).data).toBe('object');
  });

  it('test_agent_webhook_logs_empty_poll_contract', async () => {
    const agentId = await createAgent('restful_agent_webhook_logs');
    const res = await api(h, 'GET', `/api/v1/agents/${agentId}/webhook/logs?since_ts=0`);
    expect(res.status).toBe(200);
    const payload = res.body as Envelope & { data: { events: unknown[]; finished: boolean; next_since_ts: number; webhook_id: unknown } };
    expect(payload.code).toBe(0);
    expect(payload.data).toEqual({ webhook_id: null, events: [], next_since_ts: 0, finished: false });
    // Without since_ts: nothing, and the time to poll from.
    const now = await api(h, 'GET', `/api/v1/agents/${agentId}/webhook/logs`);
    expect((now.body as { data: { next_since_ts: number } }).data.next_since_ts).toBeGreaterThan(Date.now() / 1000 - 60);
    // Another tenant's agent, or none: RAGFlow's "Canvas not found."
    const foreign = await api(h, 'GET', `/api/v1/agents/${agentId}/webhook/logs?since_ts=0`, { key: h.otherKey });
    expect(foreign.body).toMatchObject({ code: 102, message: 'Canvas not found.' });
  });

  it('traces a webhook test call for /webhook/logs: its webhook_id, then its events and `finished`', async () => {
    const webhookDsl = {
      ...MINIMAL_DSL,
      components: {
        begin: {
          obj: { component_name: 'Begin', params: { mode: 'Webhook', methods: ['POST'], security: { allow_anonymous: true }, execution_mode: 'Immediately' } },
          downstream: ['message'],
          upstream: [],
        },
        message: { obj: { component_name: 'Message', params: { content: ['hooked'] } }, downstream: [], upstream: ['begin'] },
      },
    };
    const res = await api(h, 'POST', '/api/v1/agents', { body: { title: 'restful_agent_webhook_trace', dsl: webhookDsl } });
    const agentId = (res.body as { data: { id: string } }).data.id;
    adopt(agentId);
    const since = Date.now() / 1000 - 1;
    const hook = await api(h, 'POST', `/api/v1/agents/${agentId}/webhook/test`, { body: { a: 1 } });
    expect(hook.status, hook.text).toBe(200);
    const first = (await api(h, 'GET', `/api/v1/agents/${agentId}/webhook/logs?since_ts=${since}`)).body as {
      data: { webhook_id: string; events: unknown[]; next_since_ts: number; finished: boolean };
    };
    expect(first.data.webhook_id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.data.events).toEqual([]);
    let events: Array<{ event: string; ts: number }> = [];
    let finished = false;
    for (let i = 0; i < 100 && !finished; i++) {
      const poll = (await api(h, 'GET', `/api/v1/agents/${agentId}/webhook/logs?since_ts=${since}&webhook_id=${first.data.webhook_id}`)).body as {
        data: { events: Array<{ event: string; ts: number }>; finished: boolean };
      };
      events = poll.data.events;
      finished = poll.data.finished;
      if (!finished) await new Promise((r) => setTimeout(r, 100));
    }
    expect(finished).toBe(true);
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['workflow_started', 'message', 'workflow_finished', 'finished']));
    expect(events.at(-1)).toMatchObject({ event: 'finished', success: true, elapsed_time: expect.any(Number) });
    // An unknown webhook id is finished at once, as in RAGFlow.
    const unknown = await api(h, 'GET', `/api/v1/agents/${agentId}/webhook/logs?since_ts=${since}&webhook_id=nope`);
    expect(unknown.body).toMatchObject({ code: 0, data: { webhook_id: 'nope', events: [], finished: true } });
  });

  it('test_agent_db_connection_validates_required_fields', async () => {
    const res = await api(h, 'POST', '/api/v1/agents/test_db_connection', { body: { db_type: 'mysql' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 101, message: 'required argument are missing: database,username,host,port,password; ' });
  });

  it('test_db_connection: a blocked host is code 102 naming it; an unsupported type is code 100', async () => {
    const fields = { database: 'd', username: 'u', password: 'p', port: 3306 };
    const blocked = await api(h, 'POST', '/api/v1/agents/test_db_connection', { body: { ...fields, db_type: 'mysql', host: '169.254.169.254' } });
    expect(blocked.body).toMatchObject({ code: 102, message: expect.stringContaining('169.254.169.254') });
    const unsupported = await api(h, 'POST', '/api/v1/agents/test_db_connection', { body: { ...fields, db_type: 'IBM DB2', host: 'db.example' } });
    expect(unsupported.body).toMatchObject({ code: 100, message: expect.stringContaining('Unsupported database type') });
  });

  it('test_agent_rerun_requires_required_fields', async () => {
    const res = await api(h, 'POST', '/api/v1/agents/rerun', { body: { id: 'flow-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 101, message: 'required argument are missing: dsl,component_id; ' });
    const none = await api(h, 'POST', '/api/v1/agents/rerun', { body: { id: 'flow-1', dsl: {}, component_id: 'c' } });
    expect(none.body).toMatchObject({ code: 102, message: 'Document not found.' });
  });

  it('deleting an unknown or another tenant’s agent is code 103, and leaves it alone', async () => {
    const agentId = await createAgent('restful_agent_foreign_delete');
    for (const [key, id] of [
      [h.key, 'invalid-agent-id'],
      [h.otherKey, agentId],
    ] as const) {
      const res = await api(h, 'DELETE', `/api/v1/agents/${id}`, { key, raw: '', headers: { 'content-type': 'application/json' } });
      expect(res.body).toMatchObject({ code: 103, message: 'Only the owner of the agent is authorized for this operation.' });
    }
    expect((await api(h, 'GET', `/api/v1/agents/${agentId}`)).body).toMatchObject({ code: 0 });
    expect((await api(h, 'GET', '/api/v1/agents/invalid-agent-id')).body).toMatchObject({ code: 102, message: 'canvas not found.' });
  });

  it('lists agents with RAGFlow’s paging: bad values fall back to the defaults, a page size over 100 is refused', async () => {
    await createAgent('restful_agent_paging');
    for (const q of ['page=0', 'page=x', 'page_size=0', 'page_size=x', 'desc=False', 'orderby=update_time']) {
      const res = await api(h, 'GET', `/api/v1/agents?${q}`);
      expect(res.body, q).toMatchObject({ code: 0, data: { total: expect.any(Number) } });
    }
    const tooBig = await api(h, 'GET', '/api/v1/agents?page_size=101');
    expect(tooBig.body).toMatchObject({ code: 100, message: expect.stringContaining('page_size must be less than or equal to 100') });
  });

  it('the older route POST /agents/{id}/completions streams what /agents/chat/completions streams', async () => {
    const agentId = await createAgent('restful_agent_older_route');
    const sessionId = await createSession(agentId, 'older_route_session');
    const older = await api(h, 'POST', `/api/v1/agents/${agentId}/completions`, { body: { query: 'hello', stream: true, session_id: sessionId } });
    expect(older.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(older.text);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const json = events.filter((e) => e.json).map((e) => e.json!);
    expect(json.every((e) => e.session_id === sessionId)).toBe(true);
    expect(json.map((e) => e.event)).toEqual(expect.arrayContaining(['message', 'message_end', 'workflow_finished']));
    expect(
      json
        .filter((e) => e.event === 'message')
        .map((e) => (e.data as { content: string }).content)
        .join(''),
    ).toBe('hello');
    const newer = parseSse(
      (await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'hello', stream: true, session_id: sessionId } })).text,
    );
    expect(json.map((e) => e.event)).toEqual(newer.filter((e) => e.json).map((e) => e.json!.event));
    const nonstream = await api(h, 'POST', `/api/v1/agents/${agentId}/completions`, { body: { query: 'hi', stream: false, session_id: sessionId } });
    expect(nonstream.body).toMatchObject({ code: 0, data: { session_id: sessionId, data: { content: 'hi' } } });
  });

  it('return_trace: true puts RAGFlow’s trace on node_finished events (so far) and on the non-stream reply', async () => {
    const agentId = await createAgent('restful_agent_trace');
    const stream = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'traced', stream: true, return_trace: true } });
    const finished = parseSse(stream.text)
      .map((e) => e.json)
      .filter((e) => e?.event === 'node_finished') as Array<{ data: { component_id: string; trace: Array<{ component_id: string; trace: unknown[] }> } }>;
    expect(finished.length).toBeGreaterThanOrEqual(2);
    finished.forEach((e, i) => {
      expect(e.data.trace).toHaveLength(i + 1);
      expect(e.data.trace[i]).toMatchObject({ component_id: e.data.component_id, trace: [expect.objectContaining({ component_id: e.data.component_id })] });
    });
    const plain = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'untraced', stream: true } });
    expect(parseSse(plain.text).some((e) => e.json?.event === 'node_finished' && 'trace' in (e.json.data as object))).toBe(false);

    const nonstream = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, query: 'traced', stream: false, return_trace: true },
    });
    const trace = (nonstream.body as { data: { data: { trace: Array<{ component_id: string }> } } }).data.data.trace;
    expect(trace.map((t) => t.component_id)).toEqual(expect.arrayContaining(['begin', 'message']));
  });
});
