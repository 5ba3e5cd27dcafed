/**
 * What a run spent its time and model calls on, in the run view (issue 36) in Chromium against the
 * real app: the model call panel of an Agent with two tool rounds (each round's messages, model
 * and tokens from the provider's usage), the timeline of a run that paused for a form (one bar per
 * node execution, the time it waited for a person), and a node whose model call waits for provider
 * capacity (PROVIDER_LIMITS) shown as such rather than running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent, formCanvas, runStatus, script, startRun, waitNode } from './kit';
import { expectNoSeriousViolations } from './axe';

const CAPPED = 'capped@OpenAI';
let h: Harness;
let browser: Browser;
const model = { llm_id: 'scripted@OpenAI' };

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness({ env: { PROVIDER_LIMITS: JSON.stringify({ [CAPPED]: { rpm: 1 } }) } }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const detail = async (runId: string) =>
  (await api(h, 'GET', `/api/v1/runs/${runId}`)).body as {
    status: string;
    nodes: Record<string, { status: string; queued_ms?: number }>;
    queued: Array<{ component_id: string | null; waiting_for: string }>;
  };

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('model call panel', () => {
  it('shows each round of an Agent with two tool rounds: the messages sent, the model and the tokens', async () => {
    const tc = (id: string, args: unknown) => ({ id, name: 'Researcher_0', arguments: JSON.stringify(args) });
    script(h.llm, 'MARK-calls-lead', [
      { toolCalls: [tc('r1', { user_prompt: 'first fact please', reasoning: 'need one', context: 'Temporal' })] },
      { toolCalls: [tc('r2', { user_prompt: 'second fact please', reasoning: 'need two', context: 'Temporal' })] },
      { content: 'Both facts found.', usage: { prompt_tokens: 111, completion_tokens: 22 } },
    ]);
    script(h.llm, 'MARK-calls-sub', [{ content: 'Fact one: 2019.' }, { content: 'Fact two: MIT licence.' }]);
    const researcher = {
      component_name: 'Agent',
      name: 'Researcher',
      params: { ...model, sys_prompt: 'MARK-calls-sub You find facts.', description: 'Finds facts.' },
    };
    const agentId = await createAgent(
      h,
      'calls',
      dsl({
        begin: { name: 'Begin', downstream: ['Agent:lead'] },
        'Agent:lead': { name: 'Agent', params: { ...model, sys_prompt: 'MARK-calls-lead You lead.', tools: [researcher] }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{Agent:lead@content}'] } },
      }),
    );
    const runId = await startRun(h, agentId, { query: 'Find two facts.' });
    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => runStatus(page), { timeout: 60_000 }).toBe('finished');
    await page.locator('svg.graph [data-node="Agent:lead"]').click();
    await page.locator('[data-panel-node="Agent:lead"] [data-role=call-panel] > summary').click();
    const calls = page.locator('[data-role=calls] .model-call');
    await expect.poll(() => calls.count(), { timeout: 10_000 }).toBe(3);

    const roles = (i: number) =>
      calls
        .nth(i)
        .locator('.msg')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-message-role')));
    const texts = (i: number) => calls.nth(i).locator('.msg [data-role=message-content]').allTextContents();
    const fact = (i: number, role: string) => calls.nth(i).locator(`[data-role=${role}]`).first().textContent();
    // Round 1: the system prompt and the question; the model asks for the researcher.
    expect(await roles(0)).toEqual(['system', 'user']);
    expect((await texts(0))[0]).toContain('MARK-calls-lead You lead.');
    expect((await texts(0))[1]).toContain('Find two facts.');
    expect(await calls.nth(0).locator('[data-role=requested-tool]').textContent()).toContain('first fact please');
    // Round 2: the first round's tool call and the researcher's answer were sent back.
    expect(await roles(1)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect((await texts(1))[3]).toContain('Fact one: 2019.');
    expect(await calls.nth(1).locator('[data-role=requested-tool]').textContent()).toContain('second fact please');
    // The answer: both rounds' results sent, the provider's usage as reported.
    expect(await roles(2)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect((await texts(2))[5]).toContain('Fact two: MIT licence.');
    expect(await calls.nth(2).locator('[data-role=response-content]').textContent()).toBe('Both facts found.');
    for (const i of [0, 1, 2]) expect(await fact(i, 'model')).toBe('scripted');
    expect(await fact(0, 'tokens')).toMatch(/^[1-9]\d* in \/ 10 out$/);
    expect(await fact(1, 'tokens')).toMatch(/^[1-9]\d* in \/ 10 out$/);
    expect(await fact(2, 'tokens')).toBe('111 in / 22 out');
    expect(await fact(2, 'ttft')).toMatch(/\d+ ms|s$/);
    await calls.nth(1).scrollIntoViewIfNeeded();
    await screenshot(page, 'run-view-model-calls');
    // Last: a late progress refresh may draw the panel again (it stays open and reloads its calls).
    await expect.poll(() => calls.count(), { timeout: 10_000 }).toBe(3);
    await expectNoSeriousViolations(page, 'run page, model call panel open');
    expect(errors).toEqual([]);
  }, 120_000);
});

describe('timeline', () => {
  it('draws one bar per node execution and the time a form waited for a person', async () => {
    const agentId = await createAgent(h, 'timeline', formCanvas());
    const runId = await startRun(h, agentId);
    await until(
      'the pause',
      () => detail(runId),
      (d) => d.status === 'paused',
    );
    // While it waits, the open pause is a bar of the form's node.
    type Timeline = { executions: Array<{ node_id: string; status: string; segments: Array<{ kind: string; start: number; end: number }> }> };
    const pausedBars = ((await api(h, 'GET', `/api/v1/runs/${runId}/timeline`)).body as Timeline).executions;
    expect(pausedBars.at(-1)).toMatchObject({ node_id: 'UserFillUp:ask', status: 'waiting_for_person', segments: [{ kind: 'person' }] });
    await new Promise((r) => setTimeout(r, 1500));
    const answered = await api(h, 'POST', `/api/v1/runs/${runId}/inputs`, { body: { inputs: { seats: 2 } } });
    expect(answered.status, answered.text).toBe(202);
    await until(
      'the end',
      () => detail(runId),
      (d) => d.status === 'finished',
    );
    const started = (await h.store.events.list(runId, null, 1000)).filter((e) => e.event === 'node_started');
    expect(started.map((e) => e.event === 'node_started' && e.data.component_id)).toEqual(expect.arrayContaining(['UserFillUp:ask', 'Message:ok']));

    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    await page.locator('[data-role=timeline] > summary').click();
    const bars = page.locator('svg.timeline g.exec-bar');
    await expect.poll(() => bars.count(), { timeout: 10_000 }).toBe(started.length);
    const form = page.locator('svg.timeline g.exec-bar[data-node="UserFillUp:ask"]');
    expect(await form.getAttribute('data-status')).toBe('done');
    expect(await form.locator('rect[data-segment=person]').count()).toBe(1);
    expect(await page.locator('svg.timeline g.exec-bar[data-node="Message:ok"] rect[data-segment=person]').count()).toBe(0);
    const waited = await page.locator('tr[data-node="UserFillUp:ask"] [data-role=person-wait]').textContent();
    expect(waited).toMatch(/^\d+\.\d s$/);
    expect(Number.parseFloat(waited!)).toBeGreaterThanOrEqual(1.5);
    await expectNoSeriousViolations(page, 'run page, timeline open');
    await screenshot(page, 'run-view-timeline');
    expect(errors).toEqual([]);
  }, 120_000);
});

describe('a model call waiting for provider capacity', () => {
  it('shows its node as waiting for provider capacity, over HTTP and in the run view', async () => {
    // The capped model's requests for this minute and the next two are taken: its call must wait.
    const minute = Math.floor(Date.now() / 60_000);
    for (const m of [minute, minute + 1, minute + 2]) await h.store.ledger.windows.take(CAPPED, m, 0, { requests: 1, tokens: null });
    h.llm.whenPromptIncludes('Capped call.', { content: 'finally' });
    const agentId = await createAgent(
      h,
      'capped',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:c'] },
        'LLM:c': { name: 'LLM', params: { llm_id: CAPPED, sys_prompt: 'Capped call.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:c@content}'] } },
      }),
    );
    const runId = await startRun(h, agentId);
    const waiting = await until(
      'the node waiting for capacity',
      () => detail(runId),
      (d) => d.nodes['LLM:c']?.status === 'waiting_capacity',
    );
    expect(waiting.status).toBe('running');
    expect(waiting.queued).toEqual([expect.objectContaining({ component_id: 'LLM:c', waiting_for: 'provider_capacity' })]);
    expect(h.llm.calls.filter((c) => JSON.stringify(c.body.messages).includes('Capped call.'))).toHaveLength(0);

    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await page.locator('svg.graph [data-node="LLM:c"][data-state="waiting_capacity"]').waitFor({ timeout: 30_000 });
    await page.locator('svg.graph [data-node="LLM:c"]').click();
    await expect
      .poll(() => page.locator('[data-role=capacity-wait]').textContent(), { timeout: 10_000 })
      .toMatch(/^for \d.*: waiting for provider capacity \(PROVIDER_LIMITS\)$/);
    await screenshot(page, 'run-view-provider-capacity');
    // Canceled while it waits: the wait ends with the run.
    expect((await api(h, 'POST', `/api/v1/runs/${runId}/cancel`)).status).toBe(202);
    await waitNode(page, 'LLM:c', 'canceled');
    expect(errors).toEqual([]);
  }, 120_000);
});
