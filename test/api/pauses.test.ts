/**
 * Human in the loop over HTTP: a run pauses at a UserFillUp, the form is answered through
 * RAGFlow's completion route or our /runs/{id}/inputs route (a Temporal update with a validator),
 * and the same workflow carries on. Also: cancel while paused, repeats. (The pause timeout, in days, is
 * test/workflow/pauseTimeout.test.ts, on the time-skipping server.)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

const corpus = path.resolve(__dirname, '../../../shared/ragflow-dsl');
if (!existsSync(corpus))
  console.warn(`[pauses] templates/user_interaction.json test skipped: ${corpus} is absent (the RAGFlow canvases live beside the project in ../shared)`);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };

async function createAgent(title: string, body: Record<string, unknown>): Promise<string> {
  const res = (await api(h, 'POST', '/api/v1/agents', { body: { title: `${title} ${Date.now()}`, ...body } })).body as Envelope<{ id: string }>;
  expect(res.code, JSON.stringify(res)).toBe(0);
  return res.data.id;
}

async function completion(body: Record<string, unknown>) {
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { stream: true, ...body } });
  const events = parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
  return { res, events, names: events.map((e) => String(e.event)) };
}

async function waitForStatus(taskId: string, status: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = (await api(h, 'GET', `/api/v1/runs/${taskId}`)).body as Record<string, unknown>;
    if (run.status === status || Date.now() > until) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const formCanvas = (userFillUp: Record<string, unknown>) =>
  dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
    'UserFillUp:ask': {
      name: 'UserFillUp',
      params: { tips: 'How many?', inputs: { count: { type: 'integer', optional: false }, note: { type: 'line', optional: true } }, ...userFillUp },
      downstream: ['Message:ok'],
    },
    'Message:ok': { name: 'Message', params: { content: ['You asked for {UserFillUp:ask@count}.'] } },
    'Message:late': { name: 'Message', params: { content: ['Nobody answered in time.'] } },
  });

describe.skipIf(!existsSync(corpus))('templates/user_interaction.json over HTTP', () => {
  it('pauses at the form, refuses a bad answer, resumes the same workflow with a good one', async () => {
    h.llm.whenPromptIncludes('You are the Planning Agent', { content: 'PLAN: search three sources.' });
    h.llm.whenPromptIncludes('Await Response feedback:', (call) => ({
      content: `Searched as agreed (${JSON.stringify(call.body.messages.at(-1)!.content).includes('looks good') ? 'approved' : 'unapproved'}).`,
    }));
    const exported = JSON.parse(readFileSync(path.join(corpus, 'templates/user_interaction.json'), 'utf8')) as Record<string, unknown>;
    const agentId = await createAgent('user interaction', { ...exported });

    const first = await completion({ agent_id: agentId, query: 'Research durable execution' });
    expect(first.names.at(-1)).toBe('user_inputs');
    const ask = first.events.at(-1)!;
    expect(ask.data).toMatchObject({
      tips: 'Here is my search plan:\nPLAN: search three sources.\nAre you okay with it?',
      inputs: { instructions: { type: 'paragraph', optional: false } },
    });
    const sessionId = String(ask.session_id);
    const taskId = String(ask.task_id);
    expect((await waitForStatus(taskId, 'paused')).pending_inputs).toMatchObject({
      component_ids: ['UserFillUp:GoldBroomsRelate'],
      tips: expect.stringContaining('PLAN'),
    });

    // A bad answer: HTTP 400 naming the field; the run stays paused.
    const bad = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agentId, session_id: sessionId, stream: true, inputs: { instructions: { value: '' }, mood: 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 101,
      data: {
        errors: [
          { path: '$.inputs.mood', message: expect.stringContaining('not a field') },
          { path: '$.inputs.instructions', message: 'is required' },
        ],
      },
    });
    expect(((await api(h, 'GET', `/api/v1/runs/${taskId}`)).body as { status: string }).status).toBe('paused');

    const second = await completion({ agent_id: agentId, session_id: sessionId, inputs: { instructions: { value: 'looks good, go' } } });
    expect(second.names[0]).toBe('node_started');
    expect(second.names.at(-1)).toBe('workflow_finished');
    expect(second.events.every((e) => e.task_id === taskId && e.session_id === sessionId)).toBe(true);
    const text = second.events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    expect(text).toBe('Searched as agreed (approved).');

    // One workflow for both calls.
    const run = (await api(h, 'GET', `/api/v1/runs/${taskId}`)).body as { workflow_id: string; status: string };
    expect(run.status).toBe('finished');
    const handle = h.temporal.client.workflow.getHandle(run.workflow_id);
    const history = await handle.fetchHistory();
    expect(history.events!.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
    expect(history.events!.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toBe(true);
    expect((await handle.describe()).runId).toBe((await handle.describe()).raw.workflowExecutionInfo?.firstRunId);

    // The session's next turn starts a new run.
    const session = (await api(h, 'GET', `/api/v1/agents/${agentId}/sessions?id=${sessionId}`)).body as Envelope<
      Array<{ message: Array<{ role: string; content: string }> }>
    >;
    expect(session.data[0]!.message.at(-1)).toMatchObject({ role: 'assistant', content: 'Searched as agreed (approved).' });
  });
});

describe('the inputs route', () => {
  it('resumes a paused run; a repeat is refused without effect; the status shows the pending form until then', async () => {
    const agentId = await createAgent('inputs route', { dsl: formCanvas({}) });
    const first = await completion({ agent_id: agentId, query: 'hi' });
    const taskId = String(first.events.at(-1)!.task_id);
    const paused = await waitForStatus(taskId, 'paused');
    expect(paused.pending_inputs).toMatchObject({ inputs: { count: { type: 'integer' } }, tips: 'How many?' });

    const bad = await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { count: 'lots' } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', errors: [{ path: '$.inputs.count', message: 'must be a number, got "lots"' }] });
    const malformed = await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { values: {} } });
    expect(malformed.status).toBe(400);

    const ok = await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { count: '3' } } });
    expect(ok.status).toBe(202);
    const resumedAfter = (ok.body as { resumed_after: string }).resumed_after;
    const again = await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { count: 4 } } });
    expect([202, 409]).toContain(again.status);

    const rest = await api(h, 'GET', `/api/v1/runs/${taskId}/events`, { headers: { 'last-event-id': resumedAfter } });
    const events = parseSse(rest.text)
      .filter((m) => m.json)
      .map((m) => m.json!);
    expect(
      events
        .filter((e) => e.event === 'message')
        .map((e) => (e.data as { content: string }).content)
        .join(''),
    ).toBe('You asked for 3.');
    expect(events.filter((e) => e.event === 'user_inputs')).toHaveLength(0);
    const done = await waitForStatus(taskId, 'finished');
    expect(done.pending_inputs).toBeNull();
  });

  it('takes the answer again when the row says running but the workflow still waits (an answer lost with its workflow task)', async () => {
    const agentId = await createAgent('lost answer', { dsl: formCanvas({}) });
    const first = await completion({ agent_id: agentId, query: 'hi' });
    const taskId = String(first.events.at(-1)!.task_id);
    await waitForStatus(taskId, 'paused');
    // What a workflow task that died while applying an answer leaves behind: its local activity
    // marked the row running, and Temporal dropped the answer.
    await h.store.runs.setStatus(taskId, 'running');

    const ok = await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { count: '5' } } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    // The workflow says finished a moment before its closing write stores the result: read the log's end.
    const events = parseSse((await api(h, 'GET', `/api/v1/runs/${taskId}/events`)).text)
      .filter((m) => m.json)
      .map((m) => m.json!);
    expect(events.at(-1)!.event).toBe('workflow_finished');
    expect(JSON.stringify(await waitForStatus(taskId, 'finished'))).toContain('You asked for 5.');
  });

  it('refuses an answer to a running run that waits for nothing', async () => {
    const agentId = await createAgent('no pause', {
      dsl: dsl({ begin: { name: 'Begin', downstream: ['Message:hi'] }, 'Message:hi': { name: 'Message', params: { content: ['hi'] } } }),
    });
    const first = await completion({ agent_id: agentId, query: 'hi' });
    const taskId = String(first.events.at(-1)!.task_id);
    await waitForStatus(taskId, 'finished');
    await h.store.runs.setStatus(taskId, 'running');
    expect((await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { count: 1 } } })).status).toBe(409);
  });

  it('cancels a paused run', async () => {
    const agentId = await createAgent('cancel paused', { dsl: formCanvas({}) });
    const first = await completion({ agent_id: agentId, query: 'hi' });
    const taskId = String(first.events.at(-1)!.task_id);
    await waitForStatus(taskId, 'paused');
    expect((await api(h, 'POST', `/api/v1/runs/${taskId}/cancel`)).status).toBe(202);
    expect((await waitForStatus(taskId, 'canceled')).status).toBe('canceled');
    expect((await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { count: 1 } } })).status).toBe(409);
  });

  it('never lets another session resume the pause', async () => {
    const agentId = await createAgent('two sessions', { dsl: formCanvas({}) });
    const first = await completion({ agent_id: agentId, query: 'hi' });
    const pausedTask = String(first.events.at(-1)!.task_id);
    await waitForStatus(pausedTask, 'paused');
    // A new session with inputs starts its own run (Begin gets the inputs), it does not answer the other's form.
    const other = await completion({ agent_id: agentId, query: 'hello' });
    expect(other.events.at(-1)!.task_id).not.toBe(pausedTask);
    expect(((await api(h, 'GET', `/api/v1/runs/${pausedTask}`)).body as { status: string }).status).toBe('paused');
  });
});
