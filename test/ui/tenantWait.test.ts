/**
 * A run started beyond its tenant's TENANT_MAX_RUNS in the run view (Chromium): it says it waits
 * for its turn while the tenant's other run holds the only place, then runs and finishes when that
 * one ends, the note gone.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSettled, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { skipBecause } from '../helpers/skip';
import { CHROMIUM, launchBrowser, screenshot, signIn } from './browser';
import { createAgent, startRun, waitNode } from './kit';

const PROMPT = 'Holds the only place.';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ runSettings: { tenantMaxRuns: 1 } });
});
afterAll(async () => {
  await h?.close();
});

describe("a run waiting for its tenant's capacity", () => {
  it('says it waits for its turn, then runs when the other run ends', async (t) => {
    if (!existsSync(CHROMIUM)) skipBecause(t, `no Chromium at ${CHROMIUM} (CHROMIUM_PATH)`);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.llm.whenPromptIncludes(PROMPT, (call) =>
      JSON.stringify(call.body.messages).includes('first') ? { until: held, then: { content: 'First done.' } } : { content: 'Second done.' },
    );
    const agentId = await createAgent(
      h,
      'tenant wait',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: PROMPT }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    );
    const first = await startRun(h, agentId, { query: 'first' });
    const second = await startRun(h, agentId, { query: 'second' });
    const browser = await launchBrowser();
    try {
      const { page, errors } = await browser.page();
      await signIn(page, h.base, h.key);
      await page.goto(`${h.base}/ui/#/runs/${second}`);
      await expect.poll(() => page.locator('[data-role=tenant-wait]').textContent(), { timeout: 30_000 }).toMatch(/Waiting for its turn/);
      await screenshot(page, 'run-view-tenant-wait');
      release();
      await waitNode(page, 'Message:m', 'done');
      await expect.poll(() => page.locator('[data-role=tenant-wait]').count(), { timeout: 10_000 }).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      release();
      await browser.close();
    }
    expect([await runSettled(h, first), await runSettled(h, second)]).toEqual(['finished', 'finished']);
  }, 180_000);
});
