/**
 * A phone-sized walk through the run view (390 × 844): the bundled examples loaded as `npm start`
 * loads them, a newcomer's first run — the table booking form example, started from the empty
 * runs list — watched until it pauses, its form answered, then another run canceled mid-stream.
 * At every step the page has no horizontal scroll, the graph is as wide as the screen allows, and
 * a screenshot goes to test-output/ui/narrow-*.png.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExamples } from '../../server/boot/examples';
import { startHarness, TENANT, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { expectNoSeriousViolations } from './axe';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent, runStatus, waitNode } from './kit';

const WIDTH = 390;
const EXAMPLE = 'Table booking form (no model)';

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** The page scrolls sideways by this much (0: it fits the screen). */
const sideways = (page: Page) => page.evaluate<number>('document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth');

async function fits(page: Page, step: string): Promise<void> {
  expect(await page.evaluate<number>('document.scrollingElement.scrollWidth'), `${step}: page width`).toBeLessThanOrEqual(WIDTH);
  expect(await sideways(page), `${step}: horizontal scroll`).toBe(0);
  await screenshot(page, `narrow-${step}`);
}

describe('the run view at 390 px', () => {
  it('starts the bundled form example, watches it pause, answers its form and cancels another run, never scrolling sideways', async () => {
    // As `npm start` does for the default tenant; the tenant has no runs yet.
    expect(await loadExamples(h.store, TENANT, path.resolve(__dirname, '../..'))).toContain(EXAMPLE);
    const { page, errors } = await browser.page();
    await page.setViewportSize({ width: WIDTH, height: 844 });
    await signIn(page, h.base, h.key);
    const firstRun = page.locator('[data-role=no-runs] a', { hasText: EXAMPLE });
    await firstRun.waitFor();
    await fits(page, '1-empty-runs-list');

    // Start: the example's page, a query, Start.
    await firstRun.click();
    await page.locator('[data-role=query]').fill('a birthday dinner');
    await fits(page, '2-start');
    await page.locator('form.start button[type=submit]').click();
    await page.waitForURL(/#\/runs\/[0-9a-f]{32}$/);

    // Watch: the graph takes the screen's width, the run pauses at its form.
    const form = page.locator('[data-role=fill-up]');
    await form.waitFor({ timeout: 30_000 });
    await waitNode(page, 'UserFillUp:Details', 'paused');
    expect(await form.textContent()).toContain('Booking for: a birthday dinner.');
    const graphWidth = await page.locator('.graph-box').evaluate((el) => el.getBoundingClientRect().width);
    expect(graphWidth).toBeGreaterThan(WIDTH - 40);
    await page.locator('svg.graph [data-node="UserFillUp:Details"]').click();
    await page.locator('[data-panel-node="UserFillUp:Details"]').waitFor();
    await fits(page, '3-paused');
    await expectNoSeriousViolations(page, 'paused run at 390 px');

    // The form is under the graph: the head's button takes the focus (and the view) to its first field.
    await page.locator('[data-role=go-to-form]').click();
    expect(await page.evaluate<string | null>('document.activeElement?.getAttribute("data-field") ?? null')).toBe('name');

    // Answer: a blank required field is refused in the page, then the filled-in form resumes the run.
    await form.locator('button[type=submit]').click();
    await expect.poll(() => page.locator('[data-error-for=name]').textContent()).toBe('Name for the booking is required');
    await fits(page, '4-form-refused');
    await page.locator('[data-field=name]').fill('Ada');
    await page.locator('[data-field=guests]').fill('4');
    await page.locator('[data-field=seating]').selectOption('terrace');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    expect(await page.locator('[data-role=reply]').textContent()).toContain('Booked: a table for 4 under Ada (terrace), for a birthday dinner.');
    await fits(page, '5-finished');

    // Cancel another run while its model streams.
    h.llm.whenPromptIncludes('Keep talking.', { hang: true, content: 'more and more ' });
    const talker = await createAgent(
      h,
      'talker',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:talk'] },
        'LLM:talk': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: 'Keep talking.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:talk@content}'] } },
      }),
    );
    await page.goto(`${h.base}/ui/#/start/${talker}`);
    await page.locator('[data-role=query]').fill('go on');
    await page.locator('form.start button[type=submit]').click();
    await page.waitForURL(/#\/runs\/[0-9a-f]{32}$/);
    await expect.poll(() => page.locator('[data-role=reply]').textContent(), { timeout: 30_000 }).toContain('more and');
    await fits(page, '6-streaming');
    await page.locator('[data-role=cancel]').click();
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('canceled');
    await page.locator('[data-role=cancel-reason]').waitFor();
    await fits(page, '7-canceled');

    // The list, as cards: both runs, nothing wider than the screen.
    await page.goto(`${h.base}/ui/#/runs`);
    await page.locator('tbody tr[data-run]').nth(1).waitFor();
    const card = page.locator('tbody tr[data-run]').first();
    expect(await card.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { display: string } }).getComputedStyle(el).display)).toBe(
      'block',
    );
    expect(await card.locator('td[data-label="Status"]').textContent()).toBe('canceled');
    await fits(page, '8-runs-cards');
    await page.goto(`${h.base}/ui/#/canvases`);
    await page.locator('form.import').waitFor();
    await fits(page, '9-canvases');
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  });
});
