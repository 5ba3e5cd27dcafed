/**
 * Every page of the run view passes axe-core with no serious or critical violation (sign in, runs
 * list, run page paused at a form, start page, canvases and import, one canvas), at desktop width
 * and at 390 px; and the run page works from the keyboard: Tab reaches a node, Enter and Space
 * open its panel, Escape closes it and gives the focus back to the node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/appHarness';
import { expectNoSeriousViolations } from './axe';
import { launchBrowser, signIn, type Browser } from './browser';
import { createAgent, formCanvas, startRun, waitNode } from './kit';

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('accessibility', () => {
  for (const width of [1360, 390]) {
    it(`reports no serious axe-core violation on any page at ${width} px`, async () => {
      const agentId = await createAgent(h, 'a11y form', formCanvas());
      const runId = await startRun(h, agentId);
      const { page, errors } = await browser.page();
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${h.base}/ui/`);
      await page.locator('[data-role=api-key]').waitFor();
      await expectNoSeriousViolations(page, 'sign in');
      await signIn(page, h.base, h.key);
      await page.locator(`[data-run="${runId}"]`).waitFor();
      await expectNoSeriousViolations(page, 'runs list');

      await page.goto(`${h.base}/ui/#/runs/${runId}`);
      await page.locator('[data-role=fill-up]').waitFor({ timeout: 30_000 });
      await waitNode(page, 'UserFillUp:ask', 'paused');
      await page.locator('svg.graph [data-node="UserFillUp:ask"]').click();
      await page.locator('[data-panel-node="UserFillUp:ask"]').waitFor();
      await expectNoSeriousViolations(page, 'run page (paused, node panel open)');

      await page.goto(`${h.base}/ui/#/start/${agentId}`);
      await page.locator('form.start').waitFor();
      await expectNoSeriousViolations(page, 'start page');

      await page.goto(`${h.base}/ui/#/canvases`);
      await page.locator('form.import').waitFor();
      await expectNoSeriousViolations(page, 'canvases and import');

      await page.goto(`${h.base}/ui/#/canvases/${agentId}`);
      await page.locator('[data-role=validation] .ok-box').waitFor({ timeout: 30_000 });
      await expectNoSeriousViolations(page, 'one canvas');
      expect(errors).toEqual([]);
    });
  }

  it('runs the run page from the keyboard: Tab to a node, Enter or Space opens its panel, Escape closes it', async () => {
    const agentId = await createAgent(h, 'keyboard form', formCanvas());
    const runId = await startRun(h, agentId);
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await waitNode(page, 'UserFillUp:ask', 'paused');
    const focused = () => page.evaluate<string | null>("document.activeElement?.getAttribute('data-node') ?? document.activeElement?.tagName ?? null");
    // Tab from the top of the page until a graph node has the focus (the skip link, the nav and the actions come first).
    await page.locator('body').focus();
    let steps = 0;
    while ((await focused()) !== 'begin' && steps++ < 40) await page.keyboard.press('Tab');
    expect(await focused()).toBe('begin');
    // The focus is visible: the node draws a focus ring.
    const ring = await page
      .locator('svg.graph [data-node="begin"] rect')
      .evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { strokeWidth: string } }).getComputedStyle(el).strokeWidth);
    expect(ring).not.toBe('1.5px');
    await page.keyboard.press('Enter');
    await page.locator('[data-panel-node="begin"]').waitFor();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('UserFillUp:ask');
    await page.keyboard.press(' ');
    await page.locator('[data-panel-node="UserFillUp:ask"]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('[data-panel-node]').waitFor({ state: 'detached' });
    expect(await focused()).toBe('UserFillUp:ask');
  });
});
