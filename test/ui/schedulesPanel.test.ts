/**
 * The schedules page in a real headless Chromium: an agent's schedule created over HTTP is listed
 * with when it fires, what it asks, its next runs and its pause state, and Pause pauses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent } from './kit';
import { expectNoSeriousViolations } from './axe';

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness({ schedules: true }), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('schedules page', () => {
  it('lists a created schedule with its timing, query, next runs and state, and pauses it', async () => {
    const agentId = await createAgent(
      h,
      'scheduled',
      dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['report'] } } }),
    );
    const created = await api(h, 'POST', `/api/v1/agents/${agentId}/schedules`, {
      body: { cron: ['0 6 * * *'], time_zone: 'Europe/Oslo', query: 'morning digest' },
    });
    expect(created.status, created.text).toBe(201);
    const scheduleId = (created.body as { id: string }).id;
    try {
      const { page, errors } = await browser.page();
      await signIn(page, h.base, h.key);
      await page.locator('#nav a[href="#/schedules"]').click();
      await page.locator(`[data-role=schedules-agent] option[value="${agentId}"]`).waitFor({ state: 'attached' });
      await page.locator('[data-role=schedules-agent]').selectOption(agentId);
      await page.waitForURL(new RegExp(`#/schedules/${agentId}$`));
      const row = page.locator(`tr[data-schedule="${scheduleId}"]`);
      // Temporal lists schedules eventually: reload until it is there.
      await expect
        .poll(
          async () => {
            if ((await row.count()) === 0) await page.locator('[data-role=reload-schedules]').click();
            return row.count();
          },
          { timeout: 60_000, interval: 1000 },
        )
        .toBe(1);
      expect(await row.textContent()).toContain('cron 0 6 * * * (Europe/Oslo)');
      expect(await row.textContent()).toContain('morning digest');
      const state = row.locator('[data-role=schedule-state] .badge');
      expect(await state.textContent()).toBe('active');
      expect(await row.locator('[data-role=next-runs] div').count()).toBeGreaterThan(0);
      expect(await row.locator('[data-role=last-runs]').textContent()).toBe('none yet');
      await expectNoSeriousViolations(page, 'schedules page');

      await row.locator('[data-role=pause]').click();
      await expect.poll(() => state.textContent(), { timeout: 30_000 }).toBe('paused');
      expect(await row.locator('[data-role=schedule-state]').textContent()).toContain('Paused from the run view');
      const described = (await api(h, 'GET', `/api/v1/agents/${agentId}/schedules/${scheduleId}`)).body as { paused: boolean };
      expect(described.paused).toBe(true);
      await screenshot(page, 'schedules');
      expect(errors).toEqual([]);
    } finally {
      await api(h, 'DELETE', `/api/v1/agents/${agentId}/schedules/${scheduleId}`);
    }
  });
});
