/**
 * TENANT_MAX_RUNS over HTTP on the dev server: a tenant's runs beyond the cap wait their turn as
 * rows (start order, never more than the cap at the model), another tenant's run is not held
 * behind them, a waiting run can be canceled, and a place freed by a pause is taken without any
 * run ending. (An API killed while runs wait: test/scaleout/admissionRestart.test.ts.)
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, runSettled, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import type { RecordedCall } from '../helpers/scriptedLlm';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runSettings: { tenantMaxRuns: 2 } });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const llmCanvas = (prompt: string) =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { llm_id: 'admitted@OpenAI', sys_prompt: prompt }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });

async function agent(prompt: string, key?: string, body = llmCanvas(prompt)): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title: `${prompt} ${Date.now()}`, dsl: body }, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(200);
  return (res.body as { data: { id: string } }).data.id;
}

async function start(agentId: string, query: string, key?: string): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query }, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(202);
  return (res.body as { id: string }).id;
}

const detail = async (id: string, key?: string) =>
  (await api(h, 'GET', `/api/v1/runs/${id}`, key ? { key } : {})).body as { status: string; waiting_for_tenant?: { since: number; waited_ms: number } };

const settled = (ids: string[], key?: string, timeoutMs = 120_000): Promise<string[]> =>
  Promise.all(ids.map((id) => runSettled(h, id, { ...(key ? { key } : {}), timeoutMs })));

/** Most calls open at once among `calls` (from their start and end at the model). */
function mostAtOnce(calls: RecordedCall[]): number {
  const edges = calls.flatMap((c) => [
    [c.startedAt, 1],
    [c.endedAt ?? Infinity, -1],
  ]);
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d!));
  return most;
}

const queryOf = (c: RecordedCall) => String(c.body.messages.at(-1)?.content);

describe('tenant admission (TENANT_MAX_RUNS)', () => {
  it("runs a tenant's runs beyond the cap in start order, never more than the cap at once, while another tenant's run goes straight through", async () => {
    h.llm.whenPromptIncludes('Admission call.', () => ({ until: delay(1500), then: { content: 'admitted answer' } }));
    h.llm.whenPromptIncludes('Other tenant call.', { content: 'not held' });
    const mine = await agent('Admission call.');
    const theirs = await agent('Other tenant call.', h.otherKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await start(mine, `turn ${i}`));
    const waiting = await Promise.all(ids.map(async (id) => (await detail(id)).waiting_for_tenant !== undefined));
    expect(waiting).toEqual([false, false, true, true, true]);
    const other = await start(theirs, 'not held', h.otherKey);
    expect((await detail(other, h.otherKey)).waiting_for_tenant).toBeUndefined();

    expect(await settled(ids)).toEqual(['finished', 'finished', 'finished', 'finished', 'finished']);
    expect(await settled([other], h.otherKey)).toEqual(['finished']);
    const calls = h.llm.calls.filter((c) => JSON.stringify(c.body.messages).includes('Admission call.'));
    expect(calls.map(queryOf)).toHaveLength(5);
    expect(mostAtOnce(calls)).toBe(2);
    // Waiting runs went in the order they were started: the two ends admitted turns 2 and 3 (which
    // then raced each other to the model), the next end turn 4.
    const byStart = [...calls].sort((a, b) => a.startedAt - b.startedAt).map(queryOf);
    expect([byStart.slice(0, 2).sort(), byStart.slice(2, 4).sort(), byStart[4]]).toEqual([['turn 0', 'turn 1'], ['turn 2', 'turn 3'], 'turn 4']);
    // The other tenant's call was made while this tenant's last run still waited.
    const otherCall = h.llm.calls.find((c) => JSON.stringify(c.body.messages).includes('Other tenant call.'))!;
    expect(otherCall.startedAt).toBeLessThan(calls[4]!.startedAt);
  }, 180_000);

  it('streams a chat turn that waited its turn, in its session, once the run before it ends', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.llm.whenPromptIncludes('Chat in turn.', (call) =>
      JSON.stringify(call.body.messages).includes('hold') ? { until: held, then: { content: 'held answer' } } : { content: 'answered in turn' },
    );
    const id = await agent('Chat in turn.');
    const holders = [await start(id, 'hold 0'), await start(id, 'hold 1')];
    const chat = api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: id, query: 'my turn', stream: true } });
    // The turn is recorded and waits (the SSE response is open): only then are the holders let go.
    const deadline = Date.now() + 30_000;
    let waiting: string | undefined;
    while (!waiting && Date.now() < deadline) {
      const list = (await api(h, 'GET', `/api/v1/runs?canvas_id=${id}`)).body as { items: Array<{ id: string }> };
      for (const r of list.items) if ((await detail(r.id)).waiting_for_tenant) waiting = r.id;
      await delay(200);
    }
    expect(waiting).toBeDefined();
    release();
    const res = await chat;
    expect(res.status, res.text).toBe(200);
    const events = parseSse(res.text).flatMap((m) => (m.json ? [m.json] : []));
    const text = events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    expect(text).toBe('answered in turn');
    expect(events.at(-1)?.event).toBe('workflow_finished');
    const sessionId = String(events[0]?.session_id ?? '');
    const turns = (await api(h, 'GET', `/api/v1/agents/${id}/sessions/${sessionId}/turns`)).body as {
      turns: Array<{ question: { content: string }; answer: { content: string } | null; run: { task_id: string } | null }>;
    };
    expect(turns.turns.map((t) => [t.question.content, t.answer?.content, t.run?.task_id])).toEqual([['my turn', 'answered in turn', waiting]]);
    expect(await settled(holders)).toEqual(['finished', 'finished']);
  }, 180_000);

  it('cancels a run while it waits its turn: it ends canceled and never calls the model', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.llm.whenPromptIncludes('Held call.', () => ({ until: held, then: { content: 'released' } }));
    const id = await agent('Held call.');
    const first = [await start(id, 'held 0'), await start(id, 'held 1')];
    const waiting = await start(id, 'held 2');
    expect((await detail(waiting)).waiting_for_tenant).toBeDefined();
    const canceled = await api(h, 'POST', `/api/v1/tasks/${waiting}/cancel`);
    expect(canceled.status, canceled.text).toBe(200);
    expect(await settled([waiting], undefined, 60_000)).toEqual(['canceled']);
    release();
    expect(await settled(first)).toEqual(['finished', 'finished']);
    expect(h.llm.calls.filter((c) => queryOf(c) === 'held 2')).toEqual([]);
  }, 180_000);

  it('lets a waiting run take the place a paused run left', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.llm.whenPromptIncludes('Before the form.', () => ({ until: held, then: { content: 'asked' } }));
    h.llm.whenPromptIncludes('After the pause.', { content: 'went on' });
    const form = await agent(
      'Form',
      undefined,
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'admitted@OpenAI', sys_prompt: 'Before the form.' }, downstream: ['UserFillUp:ask'] },
        'UserFillUp:ask': { name: 'UserFillUp', params: { tips: 'Who?', inputs: { who: { type: 'line', optional: false } } }, downstream: ['Message:ok'] },
        'Message:ok': { name: 'Message', params: { content: ['thanks'] } },
      }),
    );
    const paused = [await start(form, 'pause 0'), await start(form, 'pause 1')];
    const after = await start(await agent('After the pause.'), 'after');
    expect((await detail(after)).waiting_for_tenant).toBeDefined();
    // Both places are given up by pauses, which end no run and wake nobody.
    release();
    expect(await settled([after], undefined, 60_000)).toEqual(['finished']);
    expect((await Promise.all(paused.map((id) => detail(id)))).map((d) => d.status)).toEqual(['paused', 'paused']);
    for (const id of paused) await api(h, 'POST', `/api/v1/tasks/${id}/cancel`);
    expect(await settled(paused)).toEqual(['canceled', 'canceled']);
  }, 180_000);
});
