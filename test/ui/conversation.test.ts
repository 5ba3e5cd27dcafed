/**
 * A session as a conversation in a real headless Chromium: reached from the runs list's session
 * link, it shows the first turn (question, answer, its run); the next message sent from its box
 * streams its answer into the same session, and the model saw the first turn as history; the run
 * page links to the conversation; and the start page continues the session instead of opening a
 * new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent, script } from './kit';
import { expectNoSeriousViolations } from './axe';

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const chat = () =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:chat'] },
    'LLM:chat': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-conversation', message_history_window_size: 4 }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:chat@content}'] } },
  });

async function finished(runId: string): Promise<void> {
  await expect
    .poll(async () => ((await api(h, 'GET', `/api/v1/runs/${runId}`)).body as { status?: string }).status, { timeout: 60_000, interval: 250 })
    .toBe('finished');
}

describe('conversation page', () => {
  it('continues a session from its page: the second answer streams in and the model saw the first turn as history', { timeout: 180_000 }, async () => {
    const seen = script(h.llm, 'MARK-conversation', [
      { content: 'Tides follow the moon.' },
      { content: 'Twice a day, roughly.', chunkWords: 1, delayMs: 30 },
      { content: 'Spring tides are the big ones.' },
    ]);
    const agentId = await createAgent(h, 'conversation', chat());
    const first = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: 'What drives tides?' } });
    expect(first.status, first.text).toBe(202);
    const { task_id: firstRun, session_id: sessionId } = first.body as { task_id: string; session_id: string };
    await finished(firstRun);

    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.locator(`tr[data-run="${firstRun}"] [data-role=session-link]`).click();
    await page.waitForURL(new RegExp(`#/sessions/${agentId}/${sessionId}$`));
    const turns = page.locator('[data-role=conversation] [data-role=turn]');
    await expect.poll(() => turns.count()).toBe(1);
    expect(await turns.nth(0).locator('[data-role=question]').textContent()).toBe('What drives tides?');
    expect(await turns.nth(0).locator('[data-role=answer]').textContent()).toBe('Tides follow the moon.');
    expect(await turns.nth(0).locator('[data-role=turn-run]').getAttribute('href')).toBe(`#/runs/${firstRun}`);

    await page.locator('[data-role=next-message]').fill('How often?');
    await page.locator('[data-role=composer] button[type=submit]').click();
    // Streamed: the answer grows in the page before the turn is reloaded from the session.
    await expect.poll(() => page.locator('[data-role=streaming-answer]').textContent(), { timeout: 60_000 }).toContain('Twice');
    await expect.poll(() => turns.count(), { timeout: 60_000 }).toBe(2);
    await expect.poll(() => turns.nth(1).locator('[data-role=answer]').textContent(), { timeout: 60_000 }).toBe('Twice a day, roughly.');
    const secondRun = (await turns.nth(1).getAttribute('data-run'))!;
    expect(secondRun).toMatch(/^[0-9a-f]{32}$/);
    expect(secondRun).not.toBe(firstRun);
    await expectNoSeriousViolations(page, 'conversation page');
    await screenshot(page, 'conversation');

    // The model got the first turn as history, before the new question.
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'What drives tides?' },
      { role: 'assistant', content: 'Tides follow the moon.' },
      { role: 'user', content: 'How often?' },
    ]);
    const runs = (await api(h, 'GET', `/api/v1/runs?session_id=${sessionId}`)).body as { total: number };
    expect(runs.total).toBe(2);

    // The run page links back to its conversation.
    await page.goto(`${h.base}/ui/#/runs/${secondRun}`);
    await page.locator('[data-role=session-link]').click();
    await page.waitForURL(new RegExp(`#/sessions/${agentId}/${sessionId}$`));
    await expect.poll(() => turns.count()).toBe(2);

    // The start page continues the session rather than opening a new one.
    await page.goto(`${h.base}/ui/#/start/${agentId}?session=${sessionId}`);
    await expect.poll(() => page.locator('[data-role=session]').inputValue()).toBe(sessionId);
    await page.locator('[data-role=query]').fill('Which are biggest?');
    await page.locator('form.start button[type=submit]').click();
    await page.waitForURL(/#\/runs\/[0-9a-f]{32}$/);
    const thirdRun = page.url().split('/').pop()!;
    await finished(thirdRun);
    const third = (await api(h, 'GET', `/api/v1/runs/${thirdRun}`)).body as { session_id: string };
    expect(third.session_id).toBe(sessionId);
    expect(seen[2]!.body.messages.slice(1).map((m) => m.content)).toContain('How often?');
    expect(errors).toEqual([]);
  });
});
