/**
 * The runs list by push, in a real headless Chromium: once its runs stream is live the page makes
 * no list request while nothing happens (it polled every 2 s before), and a run started elsewhere
 * — over HTTP, not through the page — appears in the list and turns finished without a reload.
 */
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, signIn, type Browser } from './browser';
import { createAgent } from './kit';

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const isListRequest = (r: Request) => new URL(r.url()).pathname === '/api/v1/runs' && r.method() === 'GET';

describe('runs list', () => {
  it('shows a run started elsewhere by push, with no list request while nothing happens', async () => {
    const agentId = await createAgent(
      h,
      'pushed',
      dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['pushed'] } } }),
    );
    const { page, errors } = await browser.page();
    const listRequests: string[] = [];
    page.on('request', (r) => {
      if (isListRequest(r)) listRequests.push(r.url());
    });
    await signIn(page, h.base, h.key);
    await page.locator('[data-role=list-live][data-state=live]').waitFor({ timeout: 30_000 });
    // The reload the stream's start makes (what changed between the first load and it).
    await page.waitForTimeout(1000);

    listRequests.length = 0;
    await page.waitForTimeout(5000);
    expect(listRequests, 'list requests while nothing happened').toEqual([]);

    const started = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: 'from elsewhere' } });
    expect(started.status, started.text).toBe(202);
    const runId = (started.body as { task_id: string }).task_id;
    await page.locator(`tr[data-run="${runId}"]`).waitFor({ timeout: 30_000 });
    await page.locator(`tr[data-run="${runId}"][data-status=finished]`).waitFor({ timeout: 60_000 });
    expect(listRequests.length).toBeGreaterThan(0);
    expect(await page.locator('[data-role=list-live]').getAttribute('data-state')).toBe('live');
    expect(errors).toEqual([]);
  });
});
