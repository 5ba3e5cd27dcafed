/**
 * Time travel in the run view, in a real headless Chromium against the real app (docs/API.md,
 * "Time travel"): "Fork from here" on a node with an edited param (a bad param refused by its
 * JSON path next to the field) opens the fork, which finishes with the upstream nodes marked
 * reused from the source and the edit in its answer; "Replay with model…" opens the replay and
 * its side-by-side diff; "Rerun from failed node" reruns a failed run on the fixed canvas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { json, startStandIn, type StandIn } from '../helpers/httpStandIn';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent, runStatus, startRun, waitNode } from './kit';

let h: Harness;
let browser: Browser;
let tool: StandIn;

beforeAll(async () => {
  tool = await startStandIn(() => json({ fact: 'FIXED' }));
  [h, browser] = await Promise.all([startHarness({ env: { NETWORK_ALLOW_HOSTS: new URL(tool.url).host } }), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
  await tool?.stop();
});

const twoModels = (second: string) =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': {
      name: 'LLM',
      params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-ui-a', prompts: [{ role: 'user', content: '{sys.query}' }] },
      downstream: ['LLM:b'],
    },
    'LLM:b': {
      name: 'LLM',
      params: { llm_id: 'm@OpenAI', sys_prompt: `${second} a said: {LLM:a@content}`, prompts: [{ role: 'user', content: '{sys.query}' }] },
      downstream: ['Message:out'],
    },
    'Message:out': { name: 'Message', params: { content: ['{LLM:b@content}'] } },
  });

/** Waits for the page to move to another run than `from`; answers its id. */
async function nextRun(page: Page, from: string): Promise<string> {
  await page.waitForURL((url) => /#\/runs\/[0-9a-f]{32}$/.test(url.hash) && !url.hash.endsWith(from), { timeout: 30_000 });
  return page.url().split('/').at(-1)!;
}

describe('time travel in the run view', () => {
  it('forks from a node with an edited param: the fork finishes with upstream nodes reused from the source and the edit in the answer', async () => {
    h.llm.whenPromptIncludes('MARK-ui-a', { content: 'A-output' });
    h.llm.whenPromptIncludes('MARK-ui-old', { content: 'old answer' });
    h.llm.whenPromptIncludes('MARK-ui-new', { content: 'new answer' });
    const agentId = await createAgent(h, 'fork ui', twoModels('MARK-ui-old'));
    const source = await startRun(h, agentId);
    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${source}`);
    await expect.poll(() => runStatus(page), { timeout: 60_000 }).toBe('finished');
    expect(await page.locator('[data-role=reply]').textContent()).toBe('old answer');

    await page.locator('svg.graph [data-node="LLM:b"]').click();
    await page.locator('[data-role=fork] summary').click();
    const params = page.getByLabel(/Params of LLM:b/);
    const original = await params.inputValue();
    expect(JSON.parse(original)).toMatchObject({ llm_id: 'm@OpenAI' });

    // A param the API refuses: its message, by JSON path, next to the field; nothing started.
    await params.fill(JSON.stringify({ ...JSON.parse(original), temperature: 'hot' }));
    await page.getByRole('button', { name: 'Fork from here', exact: true }).click();
    await expect.poll(() => page.locator('[data-error-for=fork-params]').textContent(), { timeout: 30_000 }).toContain('$.params["LLM:b"]');
    expect(page.url()).toContain(source);

    const calls = h.llm.calls.length;
    await params.fill(original.replace('MARK-ui-old', 'MARK-ui-new'));
    await page.getByRole('button', { name: 'Fork from here', exact: true }).click();
    const fork = await nextRun(page, source);
    await expect.poll(() => runStatus(page), { timeout: 60_000 }).toBe('finished');
    await expect.poll(() => page.locator('[data-role=reply]').textContent()).toBe('new answer');
    // Only the forked node called the model; the nodes before it are marked reused from the source.
    expect(h.llm.calls.length - calls).toBe(1);
    await waitNode(page, 'LLM:a', 'reused');
    await waitNode(page, 'begin', 'reused');
    await waitNode(page, 'LLM:b', 'done');
    expect(await page.locator('[data-role=forked-from] [data-role=source-run]').getAttribute('href')).toBe(`#/runs/${source}`);
    expect(await page.locator('[data-role=savings]').textContent()).toMatch(/Saved 1 calls \(1 model, 0 tool\), [1-9]\d* tokens/);
    await page.locator('svg.graph [data-node="LLM:a"]').click();
    expect(await page.locator('[data-panel-node="LLM:a"] [data-role=reused-link]').getAttribute('href')).toBe(`#/runs/${source}`);
    // A reused node ran in no event of the fork: its type comes from the canvas, not "—".
    expect(await page.locator('[data-panel-node="LLM:a"] [data-role=node-type]').textContent()).toBe('LLM');
    await screenshot(page, 'run-view-fork');
    expect(fork).not.toBe(source);
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  }, 180_000);

  it('replays with another model from the run view and shows the side-by-side diff, changed components marked', async () => {
    h.llm.when((call) => (JSON.stringify(call.body.messages).includes('MARK-ui-rp') ? { content: `${call.body.model} says hi` } : undefined));
    const agentId = await createAgent(h, 'replay ui', twoModels('MARK-ui-rp'));
    h.llm.whenPromptIncludes('MARK-ui-a', { content: 'A-output' });
    const source = await startRun(h, agentId);
    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${source}`);
    await expect.poll(() => runStatus(page), { timeout: 60_000 }).toBe('finished');

    await page.locator('[data-role=replay] summary').click();
    await page.getByLabel('Replace m@OpenAI with').fill('m2@OpenAI');
    expect(await page.getByLabel('Tools').inputValue()).toBe('frozen');
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    await nextRun(page, source);
    await expect.poll(() => runStatus(page), { timeout: 60_000 }).toBe('finished');
    const row = page.locator('[data-role=diff] tr[data-diff-node="LLM:b"]');
    await row.waitFor({ timeout: 30_000 });
    expect(await row.getAttribute('data-changed')).toBe('true');
    expect(await row.locator('td').allTextContents()).toEqual(['m says hi', 'm2 says hi', 'none', 'none', 'changed: answer']);
    expect(await page.locator('[data-role=diff] tr[data-diff-node="begin"]').getAttribute('data-changed')).toBe('false');
    expect(await page.locator('[data-role=replay-of] [data-role=source-run]').getAttribute('href')).toBe(`#/runs/${source}`);
    await screenshot(page, 'run-view-replay-diff');
    expect(errors).toEqual([]);
  }, 180_000);

  it('reruns a failed run from its failed node on the fixed canvas with one button', async () => {
    h.llm.whenPromptIncludes('MARK-ui-rerun', { content: 'A-DONE' });
    const canvasWith = (url: string) =>
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-ui-rerun' }, downstream: ['Invoke:call'] },
        // A loopback target no allow-list names: refused, not retried, so the run fails here.
        'Invoke:call': { name: 'Invoke', params: { url, method: 'get' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content} / {Invoke:call@result}'] } },
      });
    const agentId = await createAgent(h, 'rerun ui', canvasWith('http://127.0.0.1:9/refused'));
    const source = await startRun(h, agentId);
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${source}`);
    await expect.poll(() => runStatus(page), { timeout: 90_000 }).toBe('failed');
    const put = await api(h, 'PUT', `/api/v1/agents/${agentId}`, { body: { dsl: canvasWith(`${tool.url}/fixed`) } });
    expect((put.body as { code: number }).code, JSON.stringify(put.body)).toBe(0);
    const calls = h.llm.calls.length;
    await page.getByRole('button', { name: 'Rerun from failed node' }).click();
    await nextRun(page, source);
    await expect.poll(() => runStatus(page), { timeout: 60_000 }).toBe('finished');
    expect(await page.locator('[data-role=reply]').textContent()).toContain('FIXED');
    expect(h.llm.calls.length).toBe(calls);
    await waitNode(page, 'LLM:a', 'reused');
    expect(await page.locator('[data-role=forked-from]').textContent()).toContain('Rerun of');
  }, 240_000);
});
