/**
 * The run view in a real headless Chromium against the real app (Fastify, store, Temporal worker,
 * scripted model): sign in, list runs, start one and watch its nodes turn done in order, inspect a
 * node, answer a UserFillUp form (a bad value refused next to its field), cancel a streaming model
 * call, model output shown as text, another tenant seeing nothing, and screenshots.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent as create, formCanvas, nodeState, recordDoneOrder, runStatus, script, startRun as start, waitNode } from './kit';

let h: Harness;
let browser: Browser;
const model = { llm_id: 'scripted@OpenAI' };
const example = JSON.parse(readFileSync(path.resolve(__dirname, '../../examples/chat_assistant.json'), 'utf8')) as Record<string, unknown>;

const createAgent = (title: string, canvas: unknown) => create(h, title, canvas);
const startRun = (agentId: string) => start(h, agentId);

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('run view', () => {
  it('lists runs, starts a run of an example canvas, shows its nodes turning done in order and a node’s outputs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.llm.whenPromptIncludes('concise, friendly assistant', { until: gate, then: { content: 'Durable hello from the scripted model.', delayMs: 20 } });
    const agentId = await createAgent('Chat assistant', example);
    const { page, errors } = await browser.page();
    await recordDoneOrder(page);
    await signIn(page, h.base, h.key);

    await page.locator('[data-role=start-run]').click();
    await page.locator('[data-role=canvas]').selectOption(agentId);
    await page.locator('[data-role=query]').fill('Say hello');
    await page.locator('form.start button[type=submit]').click();
    await page.waitForURL(/#\/runs\/[0-9a-f]{32}$/);
    const runId = page.url().split('/').at(-1)!;

    // Live: Begin is done while the model call is held, the LLM node running.
    await waitNode(page, 'begin', 'done');
    await waitNode(page, 'LLM:Assistant', 'running');
    expect(await nodeState(page, 'Message:Reply')).not.toBe('done');
    release();
    await waitNode(page, 'Message:Reply', 'done');
    await expect.poll(() => runStatus(page)).toBe('finished');
    expect(await page.evaluate(() => (globalThis as unknown as { __done: string[] }).__done)).toEqual(['begin', 'LLM:Assistant', 'Message:Reply']);
    await expect.poll(() => page.locator('[data-role=reply]').textContent()).toBe('Durable hello from the scripted model.');

    await page.locator('svg.graph [data-node="LLM:Assistant"]').click();
    const outputs = page.locator('[data-panel-node="LLM:Assistant"] pre.outputs');
    await expect.poll(() => outputs.textContent()).toContain('Durable hello from the scripted model.');
    await screenshot(page, 'run-view');

    // The runs list shows it (newest first) with its canvas, status, duration and tokens.
    await page.goto(`${h.base}/ui/#/runs`);
    const row = page.locator(`tr[data-run="${runId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('finished');
    expect(await row.textContent()).toContain('Chat assistant');
    expect(await page.locator('tbody tr').first().getAttribute('data-run')).toBe(runId);
    await screenshot(page, 'runs-list');
    expect(errors).toEqual([]);
  });

  it('shows a paused run’s form; a bad value gets the API’s error next to its field; a good one resumes the run to its end', async () => {
    const agentId = await createAgent('form', formCanvas());
    const runId = await startRun(agentId);
    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    const form = page.locator('[data-role=fill-up]');
    await form.waitFor({ timeout: 30_000 });
    expect(await form.textContent()).toContain('How many seats?');
    await waitNode(page, 'UserFillUp:ask', 'paused');
    expect(await runStatus(page)).toBe('paused');

    await page.locator('[data-field=seats]').fill('two');
    await form.locator('button[type=submit]').click();
    const fieldError = page.locator('[data-error-for=seats]');
    await expect.poll(() => fieldError.textContent()).toContain('must be a number');
    expect(await runStatus(page)).toBe('paused');
    await screenshot(page, 'run-view-paused');

    await page.locator('[data-field=seats]').fill('3');
    await form.locator('button[type=submit]').click();
    await waitNode(page, 'Message:ok', 'done');
    await expect.poll(() => runStatus(page)).toBe('finished');
    expect(await page.locator('[data-role=reply]').textContent()).toBe('Booked 3 seats.');
    expect(await page.locator('[data-role=fill-up]').count()).toBe(0);
    // The refused submission is the one failed request.
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  });

  it('cancels from the page: the model stream is cut (the model server sees the connection closed)', async () => {
    h.llm.whenPromptIncludes('Talk forever.', { hang: true, content: 'and on and on ' });
    const agentId = await createAgent(
      'cancel',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:talk'] },
        'LLM:talk': { name: 'LLM', params: { ...model, sys_prompt: 'Talk forever.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:talk@content}'] } },
      }),
    );
    const calls = h.llm.calls.length;
    const runId = await startRun(agentId);
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await h.llm.waitForCalls(calls + 1);
    await expect.poll(() => page.locator('[data-role=reply]').textContent(), { timeout: 30_000 }).toContain('and on');
    await page.locator('[data-role=cancel]').click();
    await h.llm.waitForAbort(20_000);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('canceled');
    expect(h.llm.calls.slice(calls).some((c) => c.aborted)).toBe(true);
  });

  it('resumes the event stream with Last-Event-ID after the connection drops: nothing missed, nothing twice', async () => {
    h.llm.whenPromptIncludes('Count to six.', { content: 'one two three four five six' });
    const agentId = await createAgent(
      'resume',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:c'] },
        'LLM:c': { name: 'LLM', params: { ...model, sys_prompt: 'Count to six.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:c@content}'] } },
      }),
    );
    const runId = await startRun(agentId);
    const all = parseSse((await api(h, 'GET', `/api/v1/runs/${runId}/events`)).text).filter((m) => m.json);
    const cut = all.findIndex((m) => m.json!.event === 'message') + 3;
    const partial = all.slice(0, cut).map((m) => `id: ${m.id}\ndata:${m.data}\n\n`);
    // The first connection delivers part of the log and drops (no [DONE]); later ones reach the API.
    const resumedFrom: Array<string | undefined> = [];
    const { page } = await browser.page();
    await page.route(`**/api/v1/runs/${runId}/events`, async (route) => {
      if (resumedFrom.length === 0 && !route.request().headers()['last-event-id']) {
        resumedFrom.push(undefined);
        return route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: partial.join('') });
      }
      resumedFrom.push(route.request().headers()['last-event-id']);
      return route.continue();
    });
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    expect(resumedFrom).toEqual([undefined, all[cut - 1]!.id]);
    expect(await page.locator('[data-role=reply]').textContent()).toBe('one two three four five six');
  });

  it('shows an Agent’s tool calls round by round and opens the sub-agent’s own run', async () => {
    const tc = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });
    script(h.llm, 'MARK-lead', [
      { toolCalls: [tc('s1', 'Researcher_0', { user_prompt: 'find the release year', reasoning: 'need a fact', context: 'Temporal' })] },
      { content: 'Temporal was released in 2019.' },
    ]);
    script(h.llm, 'MARK-sub', [{ content: '2019, per the sources.' }]);
    const researcher = {
      component_name: 'Agent',
      name: 'Researcher',
      params: { ...model, sys_prompt: 'MARK-sub You find facts.', description: 'Finds facts.' },
    };
    const agentId = await createAgent(
      'lead',
      dsl({
        begin: { name: 'Begin', downstream: ['Agent:lead'] },
        'Agent:lead': { name: 'Agent', params: { ...model, sys_prompt: 'MARK-lead You lead.', tools: [researcher] }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{Agent:lead@content}'] } },
      }),
    );
    const runId = await startRun(agentId);
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    await page.locator('svg.graph [data-node="Agent:lead"]').click();
    const round = page.locator('[data-panel-node="Agent:lead"] .round').first();
    await round.waitFor();
    expect(await round.textContent()).toMatch(/^Round \d+Researcher.*find the release year.*2019, per the sources\./s);
    await round.locator('a').click();
    await page.waitForURL((url) => /#\/runs\/[0-9a-f]{32}$/.test(url.hash) && !url.hash.endsWith(runId));
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    expect(await page.locator('.run-head a', { hasText: 'parent run' }).getAttribute('href')).toBe(`#/runs/${runId}`);
  });

  it('renders a model answer with <script> and <img onerror> as text', async () => {
    const hostile = 'Hi <script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> bye';
    h.llm.whenPromptIncludes('Be hostile.', { content: hostile });
    const agentId = await createAgent(
      'xss',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:h'] },
        'LLM:h': { name: 'LLM', params: { ...model, sys_prompt: 'Be hostile.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:h@content}'] } },
      }),
    );
    const runId = await startRun(agentId);
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    await page.locator('svg.graph [data-node="LLM:h"]').click();
    await expect.poll(() => page.locator('[data-role=reply]').textContent()).toBe(hostile);
    expect(await page.locator('[data-panel-node="LLM:h"] pre.outputs').textContent()).toContain('<img src=\\"x\\" onerror');
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('filters and pages the runs list; the open list picks up a run started elsewhere', async () => {
    const agentId = await createAgent('paused', formCanvas());
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs?status=paused&canvas_id=${agentId}`);
    await page.locator('[data-role=no-runs]').waitFor();
    const runId = await startRun(agentId);
    await page.locator(`tr[data-run="${runId}"][data-status="paused"]`).waitFor({ timeout: 30_000 });

    const bad = await api(h, 'GET', '/api/v1/runs?status=done');
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: Array<{ path: string }> }).errors[0]!.path).toBe('$.query.status');
    const finished = (await api(h, 'GET', '/api/v1/runs?status=finished,canceled')).body as { items: Array<{ status: string }> };
    expect(finished.items.length).toBeGreaterThan(0);
    expect(finished.items.every((r) => r.status === 'finished' || r.status === 'canceled')).toBe(true);
    const ofCanvas = (await api(h, 'GET', `/api/v1/runs?canvas_id=${agentId}`)).body as { items: Array<{ id: string; started_by: unknown }> };
    expect(ofCanvas.items.map((r) => r.id)).toEqual([runId]);
    expect(ofCanvas.items[0]!.started_by).toEqual({ kind: 'user', id: 'tenant-a' });
    const pageOne = (await api(h, 'GET', '/api/v1/runs?page_size=1')).body as { items: unknown[]; total: number };
    expect(pageOne.items).toHaveLength(1);
    expect(pageOne.total).toBeGreaterThan(1);
    await api(h, 'POST', `/api/v1/runs/${runId}/cancel`);
  });

  it('lists canvases, opens one read-only (graph, versions, validation) and imports a RAGFlow export from a file', async () => {
    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/canvases`);
    const title = `Imported triage ${Date.now()}`;
    await page.locator('[data-role=import-file]').setInputFiles({
      name: 'review_triage.json',
      mimeType: 'application/json',
      buffer: readFileSync(path.resolve(__dirname, '../../examples/review_triage.json')),
    });
    await page.locator('form.import input[name=title]').fill(title);
    await page.locator('form.import button[type=submit]').click();
    await page.waitForURL(/#\/canvases\/[0-9a-f]{32}$/);
    expect(await page.locator('h2').textContent()).toContain(title);
    await expect.poll(() => page.locator('[data-role=validation]').textContent()).toContain('Valid: 6 components');
    expect(await page.locator('ul.versions li').count()).toBe(1);
    await page.locator('svg.graph [data-node="Switch:Triage"]').click();
    expect(await page.locator('aside.side').textContent()).toContain('Parameters');

    // An invalid export is refused before anything is saved, each problem with its path.
    await page.goto(`${h.base}/ui/#/canvases`);
    const broken = {
      title: 'broken',
      dsl: { components: { begin: { obj: { component_name: 'Begin', params: {} }, downstream: [], upstream: ['Nowhere:1'] } } },
    };
    await page
      .locator('[data-role=import-file]')
      .setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(broken)) });
    await page.locator('form.import button[type=submit]').click();
    const problem = page.locator('[data-role=problems] li').first();
    await expect.poll(() => problem.textContent()).toBe('$.dsl.components.begin.upstream[0] upstream component "Nowhere:1" does not exist');
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  });

  it('shows another tenant none of the first tenant’s runs', async () => {
    const mine = (await api(h, 'GET', '/api/v1/runs?page_size=100')).body as { items: Array<{ id: string }>; total: number };
    expect(mine.total).toBeGreaterThan(0);
    const { page } = await browser.page();
    await signIn(page, h.base, h.otherKey);
    await page.locator('[data-role=no-runs]').waitFor();
    expect(await page.locator('tbody tr[data-run]').count()).toBe(0);
    await page.goto(`${h.base}/ui/#/runs/${mine.items[0]!.id}`);
    await expect.poll(() => page.locator('[data-role=page-error]').textContent()).toContain('No run');
    const theirs = (await api(h, 'GET', '/api/v1/runs', { key: h.otherKey })).body as { items: unknown[]; total: number };
    expect(theirs).toMatchObject({ items: [], total: 0 });
  });

  it('serves the page with a strict Content-Security-Policy, and the OpenAPI docs at /api/v1/docs', async () => {
    const page = await fetch(`${h.base}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    expect(page.headers.get('content-security-policy')).not.toMatch(/unsafe/);
    expect(await page.text()).not.toMatch(/<script>/);
    const docs = await fetch(`${h.base}/api/v1/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    const spec = (await (await fetch(`${h.base}/api/v1/docs/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toContain('/api/v1/runs');
  });
});
