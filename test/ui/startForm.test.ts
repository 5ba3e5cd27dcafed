/**
 * The start form in a real headless Chromium against the real app: Begin's required fields are
 * marked `required`; starting with one blank is refused by the API, its message shown next to the
 * field, and no run is started; filled in, the run starts and uses the values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent, runStatus } from './kit';

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const briefing = () =>
  dsl({
    begin: {
      name: 'Begin',
      params: {
        mode: 'task',
        inputs: {
          topic: { name: 'Topic', type: 'line', optional: false },
          tone: { name: 'Tone', type: 'options', options: ['formal', 'casual'], optional: false },
          notes: { name: 'Notes', type: 'paragraph', optional: true },
        },
      },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['Brief on {begin@topic}, {begin@tone}.'] } },
  });

describe('start form', () => {
  it('marks Begin’s required fields, refuses a blank one with the API’s message next to it, and starts the run once filled in', async () => {
    const agentId = await createAgent(h, 'briefing', briefing());
    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.locator('[data-role=start-run]').click();
    await page.locator('[data-role=canvas]').selectOption(agentId);
    const topic = page.locator('[data-field=topic]');
    await topic.waitFor();
    expect(await topic.getAttribute('required')).toBe('');
    expect(await page.locator('[data-field=tone]').getAttribute('required')).toBe('');
    expect(await page.locator('[data-field=notes]').getAttribute('required')).toBeNull();

    // Nothing filled in: the form sends no inputs at all, which the API used to take.
    await page.locator('form.start button[type=submit]').click();
    const fieldError = page.locator('[data-error-for=topic]');
    await expect.poll(() => fieldError.textContent()).toBe('Topic is required');
    expect(await topic.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[data-error-for=tone]').textContent()).toBe('Tone is required');
    expect(await page.locator('[data-error-for=notes]').textContent()).toBe('');
    expect(page.url()).not.toMatch(/#\/runs\//);
    expect(((await api(h, 'GET', `/api/v1/runs?canvas_id=${agentId}`)).body as { total: number }).total).toBe(0);
    await screenshot(page, 'start-form-required');

    await topic.fill('tides');
    await page.locator('[data-field=tone]').selectOption('casual');
    await page.locator('form.start button[type=submit]').click();
    await page.waitForURL(/#\/runs\/[0-9a-f]{32}$/);
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('finished');
    expect(await page.locator('[data-role=reply]').textContent()).toBe('Brief on tides, casual.');
    // The refused start is the one failed request.
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  });
});
