/**
 * The HTTP API over real HTTP: RAGFlow's event contract on the completion stream, resuming the
 * event stream with Last-Event-ID (also after an API restart), run status and cancel.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DATA, RUN_EVENT_NAMES } from '../../src/core/engine/eventMap';
import { api, parseSse, startHarness, streamSse, type Harness, type SseMessage } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

type Envelope = { code: number; message?: string; data?: Record<string, unknown> };
const model = { llm_id: 'scripted@OpenAI' };

async function createAgent(title: string, body: Record<string, unknown>): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title, ...body } });
  const payload = res.body as Envelope;
  expect(payload.code, JSON.stringify(payload)).toBe(0);
  return (payload.data as { id: string }).id;
}

const storyCanvas = () =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:story'] },
    'LLM:story': { name: 'LLM', params: { ...model, sys_prompt: 'Tell a story.' }, downstream: ['Message:out'] },
    'Message:out': { name: 'Message', params: { content: ['Story: {LLM:story@content}'] } },
  });

const KEYS: Record<string, string[]> = {
  workflow_started: ['inputs'],
  node_started: ['component_id', 'component_name', 'component_type', 'created_at', 'inputs', 'thoughts'],
  node_finished: ['component_id', 'component_name', 'component_type', 'created_at', 'elapsed_time', 'error', 'inputs', 'outputs'],
  message: ['content'],
  message_end: [],
  workflow_finished: ['created_at', 'elapsed_time', 'inputs', 'outputs', 'usage'],
};

describe('completion stream', () => {
  it('streams RAGFlow’s events, each with its fields, ids and the session, then [DONE]', async () => {
    h.llm.whenPromptIncludes('Tell a story.', { content: 'Once upon a time there was a workflow.' });
    const agentId = await createAgent(`story ${Date.now()}`, { dsl: storyCanvas() });
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'go', stream: true } });
    const messages = parseSse(res.text);
    expect(messages.at(-1)!.data).toBe('[DONE]');
    const events = messages.filter((m) => m.json).map((m) => m.json!);
    const names = events.map((e) =>
      e.event === 'message'
        ? 'message'
        : `${String(e.event)}${(e.data as { component_id?: string }).component_id ? `:${(e.data as { component_id: string }).component_id}` : ''}`,
    );
    const compact = names.filter((n, i) => n !== 'message' || names[i - 1] !== 'message');
    expect(compact).toEqual([
      'workflow_started',
      'node_started:begin',
      'node_finished:begin',
      'node_started:LLM:story',
      'node_started:Message:out',
      'message',
      'message_end',
      'node_finished:LLM:story',
      'node_finished:Message:out',
      'workflow_finished',
    ]);
    const sessionId = events[0]!.session_id;
    expect(typeof sessionId).toBe('string');
    for (const e of events) {
      expect(Object.keys(e).sort()).toEqual(['created_at', 'data', 'event', 'message_id', 'session_id', 'task_id']);
      expect(e.session_id).toBe(sessionId);
      expect(e.task_id).toBe(events[0]!.task_id);
      expect(e.message_id).toBe(events[0]!.message_id);
      for (const key of KEYS[String(e.event)] ?? []) expect(e.data, `${String(e.event)} lacks ${key}`).toHaveProperty(key);
    }
    const text = events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    expect(text).toBe('Story: Once upon a time there was a workflow.');
    const finished = events.at(-1)!.data as { outputs: { content: string }; usage: Record<string, number> };
    expect(finished.outputs.content).toBe(text);
    expect(Object.keys(finished.usage).sort()).toEqual(['calls', 'completion_tokens', 'prompt_tokens', 'total_tokens']);
    expect(finished.usage.calls).toBe(1);
    // Every SSE message but [DONE] has an id, increasing.
    const ids = messages.filter((m) => m.json).map((m) => m.id!);
    const keys = ids.map((id) => id.split('-').map(Number) as [number, number]);
    for (let i = 1; i < keys.length; i++)
      expect(keys[i]![0] > keys[i - 1]![0] || (keys[i]![0] === keys[i - 1]![0] && keys[i]![1] > keys[i - 1]![1])).toBe(true);
  });

  it('documents every event it streams in the OpenAPI document (components.schemas.RunEvent)', async () => {
    type Schema = { properties?: Record<string, Schema>; oneOf?: unknown[] };
    const doc = (await api(h, 'GET', '/api/v1/openapi.json')).body as {
      components: { schemas: Record<string, Schema> };
      paths: Record<string, { get?: { description?: string } }>;
    };
    expect(doc.paths['/api/v1/runs/{task_id}/events']!.get!.description).toContain('components.schemas.RunEvent');
    const schemas = doc.components.schemas;
    expect(schemas.RunEvent!.oneOf).toHaveLength(RUN_EVENT_NAMES.length);
    for (const name of RUN_EVENT_NAMES) {
      const event = schemas[`RunEvent.${name}`]!;
      expect(Object.keys(event.properties!).sort()).toEqual(['created_at', 'data', 'event', 'message_id', 'session_id', 'task_id']);
      expect(Object.keys(event.properties!.data!.properties!).sort()).toEqual(Object.keys(EVENT_DATA[name].shape).sort());
    }
  });

  it('resumes the run’s events after Last-Event-ID with exactly the missed ones, also after an API restart', async () => {
    h.llm.whenPromptIncludes('Slow story.', { content: 'one two three four five six seven eight nine ten', delayMs: 40 });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:slow'] },
      'LLM:slow': { name: 'LLM', params: { ...model, sys_prompt: 'Slow story.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:slow@content}'] } },
    });
    const agentId = await createAgent(`slow ${Date.now()}`, { dsl: canvas });
    // Read the stream until a few tokens arrived, then hang up.
    const first = await streamSse(
      `${h.base}/api/v1/agents/chat/completions`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, query: 'go', stream: true }),
      },
      (m) => (m.json?.event === 'message' ? (m.json.data as { content: string }).content.includes('three') : false),
    );
    const lastSeen = first.at(-1)!;
    const runId = String(lastSeen.json!.task_id);
    await h.restartApi();
    const rest = await streamSse(
      `${h.base}/api/v1/runs/${runId}/events`,
      { headers: { authorization: `Bearer ${h.key}`, 'last-event-id': lastSeen.id! } },
      () => false,
    );
    expect(rest.at(-1)!.data).toBe('[DONE]');
    const all = await api(h, 'GET', `/api/v1/runs/${runId}/events`);
    const full = parseSse(all.text).filter((m: SseMessage) => m.json);
    const missed = full.slice(full.findIndex((m) => m.id === lastSeen.id) + 1);
    expect(rest.filter((m) => m.json).map((m) => m.id)).toEqual(missed.map((m) => m.id));
    const text = [...first, ...rest]
      .filter((m) => m.json?.event === 'message')
      .map((m) => (m.json!.data as { content: string }).content)
      .join('');
    expect(text).toBe('one two three four five six seven eight nine ten');
  });

  it('reports a run’s status, path and node states', async () => {
    const agentId = await createAgent(`status ${Date.now()}`, { dsl: storyCanvas() });
    const reply = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'go', stream: false } });
    const runId = String((reply.body as { data: { task_id: string } }).data.task_id);
    const status = await api(h, 'GET', `/api/v1/runs/${runId}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ id: runId, status: 'finished', path: ['begin', 'LLM:story', 'Message:out'], error: null });
    expect((status.body as { nodes: Record<string, { status: string }> }).nodes['LLM:story']!.status).toBe('finished');
  });

  it('cancels a running task through RAGFlow’s /tasks route: the stream ends canceled', async () => {
    h.llm.whenPromptIncludes('Never ends.', { hang: true, content: 'and on ' });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:x'] },
      'LLM:x': { name: 'LLM', params: { ...model, sys_prompt: 'Never ends.' }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{LLM:x@content}'] } },
    });
    const agentId = await createAgent(`cancel ${Date.now()}`, { dsl: canvas });
    let taskId = '';
    let cancelled: Promise<{ body: unknown }> | null = null;
    const messages = await streamSse(
      `${h.base}/api/v1/agents/chat/completions`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, query: 'go', stream: true }),
      },
      (m) => {
        if (m.json?.event === 'message' && !cancelled) {
          taskId = String(m.json.task_id);
          cancelled = api(h, 'POST', `/api/v1/tasks/${taskId}/cancel`);
        }
        return false;
      },
    );
    expect(cancelled).not.toBeNull();
    expect((await cancelled!).body).toMatchObject({ code: 0, data: true });
    const names = messages.filter((m) => m.json).map((m) => m.json!.event);
    expect(names.slice(-3)).toEqual(['node_finished', 'run_canceled', 'workflow_finished']);
    expect(messages.at(-1)!.data).toBe('[DONE]');
    const status = await api(h, 'GET', `/api/v1/runs/${taskId}`);
    expect((status.body as { status: string }).status).toBe('canceled');
  });
});

describe('canvas validation over HTTP', () => {
  // A downstream naming no component is only a warning (RAGFlow loads it); a parent that does not
  // exist is refused, as RAGFlow's compiler refuses it.
  const bad = dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { ...model, temperature: 3 } },
    'Mystery:b': { name: 'Mystery' },
    'Message:c': { name: 'Message', params: { content: ['x'] }, parent_id: 'Nope:1' },
  });

  it('rejects a bad DSL on RAGFlow’s route with code 101 listing every bad path', async () => {
    const res = await api(h, 'POST', '/api/v1/agents', { body: { title: `bad ${Date.now()}`, dsl: bad } });
    expect(res.status).toBe(200);
    const body = res.body as { code: number; message: string; data: { errors: Array<{ path: string }> } };
    expect(body.code).toBe(101);
    const paths = body.data.errors.map((e) => e.path);
    expect(paths).toEqual([
      '$.dsl.components["LLM:a"].obj.params.temperature',
      '$.dsl.components["Mystery:b"].obj.component_name',
      '$.dsl.components["Message:c"].parent_id',
    ]);
    for (const p of paths) expect(body.message).toContain(p);
  });

  it('rejects it on our route with HTTP 400 and the same paths', async () => {
    const res = await api(h, 'POST', '/api/v1/canvases/validate', { body: { dsl: bad } });
    expect(res.status).toBe(400);
    expect((res.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toHaveLength(3);
  });

  it('creates an agent from a RAGFlow export file and keeps its graph and category order', async () => {
    const file = path.resolve(__dirname, '../../../shared/ragflow-dsl/templates/customer_feedback_dispatcher.json');
    const exported = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
      : (JSON.parse(readFileSync(path.resolve(__dirname, '../../examples/support_router.json'), 'utf8')) as Record<string, unknown>);
    const res = await api(h, 'POST', '/api/v1/agents', { body: { ...exported, title: `${String(exported.title)} ${Date.now()}` } });
    const created = res.body as Envelope & {
      data: { id: string; dsl: { graph: unknown; components: Record<string, { obj: { params: { category_description?: object } } }> } };
    };
    expect(created.code, JSON.stringify(created).slice(0, 300)).toBe(0);
    const original = exported.dsl as typeof created.data.dsl;
    expect(created.data.dsl.graph).toEqual(original.graph);
    const got = await api(h, 'GET', `/api/v1/agents/${created.data.id}`);
    const stored = (got.body as typeof created).data.dsl;
    for (const [id, c] of Object.entries(original.components)) {
      if (c.obj.params.category_description)
        expect(Object.keys(stored.components[id]!.obj.params.category_description!)).toEqual(Object.keys(c.obj.params.category_description));
    }
  });
});
