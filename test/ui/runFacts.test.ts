/**
 * The facts the run view states are the run's own: a run whose session was deleted was started by
 * that session's turn (never "webhook"); a deleted canvas is named as deleted, with the title its
 * run started under; a canceled run reports the tokens its cut model call sent and streamed, and
 * why it was canceled; a required Begin input left blank is refused in the page (no request) and
 * over HTTP (400 naming the field), as is a number for a paragraph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { launchBrowser, signIn, type Browser } from './browser';
import { createAgent, runStatus, startRun } from './kit';

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

interface RunItem {
  id: string;
  session_id: string | null;
  status: string;
  canvas_title: string | null;
  canvas_deleted: boolean;
  session_deleted: boolean;
  started_by: { kind: string; id: string };
  usage: { total_tokens?: number; prompt_tokens?: number; completion_tokens?: number; estimated?: boolean } | null;
}

const hello = () =>
  dsl({
    begin: { name: 'Begin', downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['Hello.'] } },
  });

async function listed(agentId: string): Promise<RunItem[]> {
  return ((await api(h, 'GET', `/api/v1/runs?canvas_id=${agentId}`)).body as { items: RunItem[] }).items;
}

async function finished(runId: string): Promise<void> {
  await expect.poll(async () => ((await api(h, 'GET', `/api/v1/runs/${runId}`)).body as { status: string }).status, { timeout: 30_000 }).toBe('finished');
}

describe('run facts', () => {
  it('says a run whose session was deleted was started by that (deleted) session, not a webhook', async () => {
    const agentId = await createAgent(h, 'session facts', hello());
    const runId = await startRun(h, agentId);
    await finished(runId);
    const [before] = await listed(agentId);
    expect(before!.started_by).toEqual({ kind: 'user', id: 'tenant-a' });
    const del = await api(h, 'DELETE', `/api/v1/agents/${agentId}/sessions/${before!.session_id}`);
    expect((del.body as { code: number }).code, del.text).toBe(0);

    const [after] = await listed(agentId);
    expect(after).toMatchObject({ started_by: { kind: 'session', id: before!.session_id }, session_deleted: true });
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs?canvas_id=${agentId}`);
    const row = page.locator(`tr[data-run="${runId}"]`);
    await row.waitFor();
    const startedBy = await row.locator('td[data-label="Started by"]').textContent();
    expect(startedBy).toBe(`deleted session ${before!.session_id!.slice(0, 8)}`);
    expect(await row.locator('td[data-label="Session"]').textContent()).toContain('deleted');
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => page.locator('[data-role=started-by]').textContent()).toBe(`Started by: a deleted session ${before!.session_id!.slice(0, 8)}`);
  });

  it('names a deleted canvas as deleted, with the title its run started under, never a bare id', async () => {
    const agentId = await createAgent(h, 'Doomed canvas', hello());
    const runId = await startRun(h, agentId);
    await finished(runId);
    const title = (await listed(agentId))[0]!.canvas_title!;
    expect(title).toMatch(/^Doomed canvas \d+$/);
    const del = await api(h, 'DELETE', `/api/v1/agents/${agentId}`);
    expect((del.body as { code: number }).code, del.text).toBe(0);

    const [row] = await listed(agentId);
    expect(row).toMatchObject({ canvas_title: null, canvas_deleted: true });
    const detail = (await api(h, 'GET', `/api/v1/runs/${runId}`)).body as { canvas_title: string; canvas_deleted: boolean };
    expect(detail).toMatchObject({ canvas_title: title, canvas_deleted: true });
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs?canvas_id=${agentId}`);
    const cell = page.locator(`tr[data-run="${runId}"] td[data-label="Canvas"]`);
    await expect.poll(() => cell.textContent()).toBe(`deleted canvas ${agentId.slice(0, 12)}`);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => page.locator('[data-role=canvas-name]').textContent()).toBe(`Canvas: deleted canvas ${title}`);
  });

  it('reports a canceled run’s tokens — the prompt sent and the text streamed before the cancel — and the cancel’s reason', async () => {
    h.llm.whenPromptIncludes('Ramble on.', { hang: true, content: 'and on and on ' });
    const agentId = await createAgent(
      h,
      'cancel facts',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:talk'] },
        'LLM:talk': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: 'Ramble on.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:talk@content}'] } },
      }),
    );
    const calls = h.llm.calls.length;
    const runId = await startRun(h, agentId);
    const { page } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await h.llm.waitForCalls(calls + 1);
    await expect.poll(() => page.locator('[data-role=reply]').textContent(), { timeout: 30_000 }).toContain('and on');
    await page.locator('[data-role=cancel]').click();
    await expect.poll(() => runStatus(page), { timeout: 30_000 }).toBe('canceled');

    const reason = page.locator('[data-role=cancel-reason]');
    await expect.poll(() => reason.textContent()).toContain('Canceled: canceled through /api/v1/runs/{id}/cancel');
    expect(await page.locator('[data-role=temporal-hint]').textContent()).toContain('Completed');
    const usageOf = async () => ((await api(h, 'GET', `/api/v1/runs/${runId}`)).body as RunItem).usage;
    await expect.poll(async () => (await usageOf())?.total_tokens ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
    const usage = (await usageOf())!;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.estimated).toBe(true);
    await expect
      .poll(() => page.locator('[data-role=run-tokens]').textContent(), { timeout: 15_000 })
      .toBe(`Tokens ≈ ${usage.total_tokens} (${usage.prompt_tokens} in / ${usage.completion_tokens} out)`);
    expect((await listed(agentId))[0]!.usage?.total_tokens).toBe(usage.total_tokens);
    // The ledger says which of its tokens are estimates (no usage came back from a cut stream).
    const ledger = (await api(h, 'GET', `/api/v1/usage?run_id=${runId}`)).body as { total: { total_tokens: number; estimated_tokens: number } };
    expect(ledger.total.estimated_tokens).toBeGreaterThan(0);
    expect(ledger.total.estimated_tokens).toBeLessThanOrEqual(ledger.total.total_tokens);
  });

  it('refuses a required Begin input left blank in the page (no request made) and over HTTP (400 naming the field), and a number for a paragraph', async () => {
    const agentId = await createAgent(
      h,
      'required facts',
      dsl({
        begin: {
          name: 'Begin',
          params: {
            mode: 'task',
            inputs: {
              topic: { name: 'Topic', type: 'line', optional: false },
              count: { name: 'Count', type: 'integer', optional: true },
              notes: { name: 'Notes', type: 'paragraph', optional: true },
            },
          },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['On {begin@topic}.'] } },
      }),
    );
    const { page } = await browser.page();
    const starts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/runs') starts.push(r.postData() ?? '');
    });
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/start/${agentId}`);
    const topic = page.locator('[data-field=topic]');
    await topic.waitFor();
    await topic.fill('   ');
    await page.locator('[data-field=count]').fill('three');
    await page.locator('form.start button[type=submit]').click();
    await expect.poll(() => page.locator('[data-error-for=topic]').textContent()).toBe('Topic is required');
    expect(await page.locator('[data-error-for=count]').textContent()).toBe('Count must be a number, got "three"');
    expect(await topic.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate<string | null>('document.activeElement?.getAttribute("data-field") ?? null')).toBe('topic');
    expect(starts).toEqual([]);

    const blank = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: '', inputs: { topic: '  ' } } });
    expect(blank.status, blank.text).toBe(400);
    expect((blank.body as { errors: Array<{ path: string; message: string }> }).errors).toContainEqual({ path: '$.inputs.topic', message: 'is required' });
    const numeric = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, inputs: { topic: 'tides', notes: 42 } } });
    expect(numeric.status, numeric.text).toBe(400);
    expect((numeric.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual(['$.inputs.notes']);
    expect(((await api(h, 'GET', `/api/v1/runs?canvas_id=${agentId}`)).body as { total: number }).total).toBe(0);

    await topic.fill('tides');
    await page.locator('[data-field=count]').fill('3');
    await page.locator('form.start button[type=submit]').click();
    await page.waitForURL(/#\/runs\/[0-9a-f]{32}$/);
    expect(starts).toHaveLength(1);
  });
});
