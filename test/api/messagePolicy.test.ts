/**
 * A message while the session runs (message_policy, docs/API.md), over real HTTP against the dev
 * server: the session's first turn is held in its model call by the scripted model (released by
 * the test), and a second message arrives meanwhile, with each policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, TENANT, type Harness } from '../helpers/appHarness';
import { MINIMAL_DSL } from './ragflow-contract/agentKit';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

type Envelope = { code: number; message?: string; data?: Record<string, unknown> };

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

/** An Agent with a tool in its catalog (so it runs its model rounds), which the scripted model never calls. */
function agentDsl(prompt: string) {
  const tool = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } };
  return {
    ...MINIMAL_DSL,
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['Agent:a'], upstream: [] },
      'Agent:a': {
        obj: { component_name: 'Agent', params: { llm_id: 'x@OpenAI', sys_prompt: prompt, tools: [tool], max_rounds: 3 } },
        downstream: ['Message:out'],
        upstream: ['begin'],
      },
      'Message:out': { obj: { component_name: 'Message', params: { content: ['{Agent:a@content}'] } }, downstream: [], upstream: ['Agent:a'] },
    },
  };
}

async function createAgent(title: string, dsl: unknown, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title, dsl, ...extra } });
  expect((res.body as Envelope).code, res.text).toBe(0);
  return (res.body as { data: { id: string } }).data.id;
}

async function newSession(agentId: string): Promise<string> {
  const res = await api(h, 'POST', `/api/v1/agents/${agentId}/sessions`, { body: {} });
  return (res.body as { data: { id: string } }).data.id;
}

/** A gate the scripted model holds a call at until the test opens it. */
function gate(): { held: Promise<void>; open: () => void } {
  let open = () => {};
  const held = new Promise<void>((resolve) => (open = resolve));
  return { held, open };
}

const completion = (agentId: string, sessionId: string, query: string, extra: Record<string, unknown> = {}) =>
  api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, session_id: sessionId, query, stream: false, ...extra } });

/** Starts the session's first turn as a streamed completion (a client follows it) and waits until its run holds the session. */
async function firstTurn(agentId: string, sessionId: string, query = 'one') {
  const reply = api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, session_id: sessionId, query, stream: true } });
  let run = null;
  for (let i = 0; i < 400 && !run; i++) {
    run = await h.store.runs.activeForSession(TENANT, sessionId);
    if (!run) await new Promise((r) => setTimeout(r, 50));
  }
  expect(run, 'the first turn holds the session').not.toBeNull();
  return { run: run!, reply };
}

async function settled(runId: string, within = 60_000) {
  const until = Date.now() + within;
  for (;;) {
    const run = await h.store.runs.getById(runId);
    if (run && run.status !== 'running' && run.status !== 'paused') return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run?.status ?? 'unrecorded'}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const events = async (runId: string) => h.store.events.list(runId, null, 10_000);

describe('message_policy: a message while the session runs', () => {
  it('reject (the default): RAGFlow’s code 102 "already has a run in progress"; a bad policy is refused naming the field', async () => {
    const g = gate();
    h.llm.whenPromptIncludes('Reject model.', { until: g.held, then: { content: 'first answer' } });
    const agent = await createAgent('policy reject', llmDsl('Reject model.'));
    const session = await newSession(agent);
    const first = await firstTurn(agent, session);
    for (const extra of [{}, { message_policy: 'reject' }]) {
      const second = await completion(agent, session, 'two', extra);
      expect(second.body, JSON.stringify(extra)).toMatchObject({ code: 102, message: expect.stringMatching(/already has a run in progress/) });
    }
    const bad = await completion(agent, session, 'two', { message_policy: 'later' });
    expect(bad.body).toMatchObject({ code: 101, message: expect.stringContaining('message_policy') });
    g.open();
    await first.reply;
    expect((await settled(first.run.id)).status).toBe('finished');
  });

  it('enqueue (the agent’s policy): two messages run after the turn, in order, each as the session’s next turn', async () => {
    const g = gate();
    h.llm.whenPromptIncludes('Queue model.', (call) => {
      const asked = JSON.stringify(call.body.messages);
      if (asked.includes('three')) return { content: 'answer three' };
      if (asked.includes('two')) return { content: 'answer two' };
      return { until: g.held, then: { content: 'answer one' } };
    });
    const agent = await createAgent('policy enqueue', llmDsl('Queue model.'), { message_policy: 'enqueue' });
    expect((await api(h, 'GET', `/api/v1/agents/${agent}`)).body).toMatchObject({ data: { message_policy: 'enqueue' } });
    const session = await newSession(agent);
    const first = await firstTurn(agent, session);

    const two = await completion(agent, session, 'two');
    expect(two.body).toMatchObject({ code: 0, data: { queued: true, position: 1, session_id: session } });
    // Streamed, a queued message is told its place first, then gets its turn's events.
    const three = api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agent, session_id: session, query: 'three', stream: true } });
    for (let i = 0; i < 100 && (await h.store.messageQueue.waitingSessions(100)).every((s) => s.session_id !== session); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await h.store.runs.activeForSession(TENANT, session))?.id).toBe(first.run.id);

    g.open();
    await first.reply;
    const streamed = parseSse((await three).text);
    expect(streamed[0]!.json).toMatchObject({ event: 'message_queued', data: { position: 2 }, session_id: session });
    const content = streamed
      .filter((m) => m.json?.event === 'message')
      .map((m) => (m.json!.data as { content: string }).content)
      .join('');
    expect(content).toBe('answer three');
    expect(streamed.at(-1)!.data).toBe('[DONE]');

    const twoRun = await settled((two.body as Envelope).data!.task_id as string);
    expect(twoRun.status).toBe('finished');
    const threeRunId = streamed[0]!.json!.task_id as string;
    const threeRun = await settled(threeRunId);
    expect(twoRun.create_time).toBeLessThan(threeRun.create_time);
    const got = await api(h, 'GET', `/api/v1/agents/${agent}/sessions/${session}`);
    const messages = (got.body as { data: { message: Array<{ role: string; content: string }> } }).data.message;
    // After the prologue: each turn in the order its message was sent.
    expect(messages.slice(1).map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:one',
      'assistant:answer one',
      'user:two',
      'assistant:answer two',
      'user:three',
      'assistant:answer three',
    ]);
  });

  it('interrupt: the running turn ends canceled with the reason, and the new message is answered', async () => {
    h.llm.whenPromptIncludes('Interrupt model.', (call) =>
      JSON.stringify(call.body.messages).includes('two') ? { content: 'answer two' } : { hang: true, content: 'a long' },
    );
    const agent = await createAgent('policy interrupt', llmDsl('Interrupt model.'));
    const session = await newSession(agent);
    const first = await firstTurn(agent, session);
    const second = await completion(agent, session, 'two', { message_policy: 'interrupt' });
    expect(second.body).toMatchObject({ code: 0, data: { data: { content: 'answer two' } } });
    expect((await settled(first.run.id)).status).toBe('canceled');
    const canceled = (await events(first.run.id)).find((e) => e.event === 'run_canceled');
    expect(canceled?.data).toEqual({ reason: "interrupted by the session's next message" });
    await first.reply;
  });

  it('steer: the running Agent gets the message before its next model request; a retried request (same id) is applied once', async () => {
    const g = gate();
    h.llm.whenPromptIncludes('Steer model.', (call) =>
      JSON.stringify(call.body.messages).includes('Only direct flights') ? { content: 'direct flights only' } : { until: g.held, then: { content: 'draft' } },
    );
    const agent = await createAgent('policy steer', agentDsl('Steer model.'));
    const session = await newSession(agent);
    const before = h.llm.calls.length;
    const first = await firstTurn(agent, session, 'find flights');
    await h.llm.waitForCalls(before + 1);

    const body = { message_policy: 'steer', message_id: 'steer-req-1' };
    const steered = await completion(agent, session, 'Only direct flights, please.', body);
    expect(steered.body).toMatchObject({
      code: 0,
      data: { steered: true, task_id: first.run.id, message_id: 'steer-req-1', component_ids: ['Agent:a'] },
    });
    // The client retries (its answer was lost), naming the message by the Idempotency-Key header this time.
    const retried = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agent, session_id: session, query: 'Only direct flights, please.', stream: false, message_policy: 'steer' },
      headers: { 'idempotency-key': 'steer-req-1' },
    });
    expect(retried.body).toMatchObject({ code: 0, data: { steered: true, message_id: 'steer-req-1' } });

    g.open();
    await first.reply;
    expect((await settled(first.run.id)).status).toBe('finished');
    const calls = h.llm.calls.slice(before).filter((c) => JSON.stringify(c.body.messages).includes('Steer model.'));
    expect(calls).toHaveLength(2);
    const next = calls[1]!.body.messages;
    expect(next.slice(-2)).toEqual([
      { role: 'assistant', content: 'draft' },
      { role: 'user', content: 'Only direct flights, please.' },
    ]);
    expect(next.filter((m) => m.content === 'Only direct flights, please.')).toHaveLength(1);
    const shown = (await events(first.run.id)).filter((e) => e.event === 'message_steered');
    expect(shown.map((e) => e.data)).toEqual([{ steer_id: 'steer-req-1', content: 'Only direct flights, please.', component_ids: ['Agent:a'] }]);
  });

  it('steer, streamed: the reply follows the running turn from the message on, its message_steered event included, to the end', async () => {
    const g = gate();
    h.llm.whenPromptIncludes('Streamed steer model.', (call) =>
      JSON.stringify(call.body.messages).includes('Window seats') ? { content: 'window seats booked' } : { until: g.held, then: { content: 'draft' } },
    );
    const agent = await createAgent('policy steer streamed', agentDsl('Streamed steer model.'), { message_policy: 'steer' });
    const session = await newSession(agent);
    const before = h.llm.calls.length;
    const first = await firstTurn(agent, session, 'book seats');
    await h.llm.waitForCalls(before + 1);
    // The stream opens once the run took the message (fetch resolves at the response's headers).
    const steering = await fetch(`${h.base}/api/v1/agents/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent, session_id: session, query: 'Window seats.', stream: true }),
    });
    expect(steering.headers.get('content-type')).toContain('text/event-stream');
    g.open();
    const frames = parseSse(await steering.text());
    const names = frames.map((m) => m.json?.event);
    expect(names).toContain('message_steered');
    expect(names.indexOf('message_steered')).toBeLessThan(names.lastIndexOf('workflow_finished'));
    expect(names).not.toContain('workflow_started');
    expect(frames.at(-1)!.data).toBe('[DONE]');
    expect(frames.every((m) => !m.json || m.json.task_id === first.run.id)).toBe(true);
    await first.reply;
  });

  it('steer into a run with no Agent in a model round is refused, saying why; the run goes on', async () => {
    const g = gate();
    h.llm.whenPromptIncludes('No agent model.', { until: g.held, then: { content: 'plain answer' } });
    const agent = await createAgent('policy steer refused', llmDsl('No agent model.'), { message_policy: 'steer' });
    const session = await newSession(agent);
    const first = await firstTurn(agent, session);
    const refused = await completion(agent, session, 'change course');
    expect(refused.body).toMatchObject({ code: 102, message: expect.stringMatching(/not steered .*no Agent of the run is in a model round/) });
    g.open();
    await first.reply;
    expect((await settled(first.run.id)).status).toBe('finished');
    expect((await events(first.run.id)).some((e) => e.event === 'message_steered')).toBe(false);
  });

  it('our runs route takes message_policy too: a queued run answers 202 with its place', async () => {
    const g = gate();
    h.llm.whenPromptIncludes('Runs route model.', (call) =>
      JSON.stringify(call.body.messages).includes('later') ? { content: 'later answer' } : { until: g.held, then: { content: 'now' } },
    );
    const agent = await createAgent('policy runs route', llmDsl('Runs route model.'));
    const session = await newSession(agent);
    const first = await firstTurn(agent, session);
    const queued = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agent, session_id: session, query: 'later', message_policy: 'enqueue' } });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'queued', position: 1, session_id: session });
    g.open();
    await first.reply;
    expect((await settled((queued.body as { id: string }).id)).status).toBe('finished');
  });

  it('the OpenAI route takes message_policy: a queued message waits for its turn and answers a chat completion', async () => {
    const g = gate();
    h.llm.whenPromptIncludes('OpenAI queue model.', (call) =>
      JSON.stringify(call.body.messages).includes('later') ? { content: 'later answer' } : { until: g.held, then: { content: 'now' } },
    );
    const agent = await createAgent('policy openai route', llmDsl('OpenAI queue model.'));
    const session = await newSession(agent);
    const first = await firstTurn(agent, session);
    const body = { model: agent, messages: [{ role: 'user', content: 'later' }], session_id: session, message_policy: 'enqueue' };
    const queued = api(h, 'POST', '/v1/chat/completions', { body });
    await new Promise((r) => setTimeout(r, 500));
    g.open();
    const res = await queued;
    expect(res.headers.get('x-queue-position')).toBe('1');
    expect(res.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'later answer' } }] });
    await first.reply;
    const bad = await api(h, 'POST', '/v1/chat/completions', { body: { ...body, message_policy: 'sometimes' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('message_policy');
  });
});
