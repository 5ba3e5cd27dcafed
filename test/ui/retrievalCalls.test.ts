/**
 * The model call panel of a Retrieval node in Chromium against the real app (issue 36): its
 * embedding request (a failed attempt, then the one that answered) and its rerank request, each
 * with its kind, the model, the query, the documents reranked, the duration and the tokens the
 * endpoint reported. The endpoints are a real local HTTP server (test/helpers/embedRerankServer.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { EMBED_TOKENS_PER_TEXT, RERANK_TOKENS, seedDataset, startEmbedRerankServer, type EmbedRerankServer } from '../helpers/embedRerankServer';
import { expectNoSeriousViolations } from './axe';
import { launchBrowser, screenshot, signIn, type Browser } from './browser';
import { createAgent, runStatus, startRun } from './kit';

let h: Harness;
let peer: EmbedRerankServer;
let browser: Browser;

beforeAll(async () => {
  peer = await startEmbedRerankServer();
  [h, browser] = await Promise.all([
    startHarness({ env: { EMBEDDING_BASE_URL: peer.url, EMBEDDING_API_KEY: 'test', EMBEDDING_MODEL: 'panel-embed', RERANK_BASE_URL: peer.url } }),
    launchBrowser(),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
  await peer?.stop();
});

describe('model call panel of a Retrieval node', () => {
  it('shows its embedding request (the failed attempt and the retry) and its rerank request: kind, model, query, documents, tokens', async () => {
    const datasetId = await seedDataset(h, ['Refunds are paid within five business days.', 'The warranty covers two years of use.']);
    const agentId = await createAgent(
      h,
      'retrieval panel',
      dsl({
        begin: { name: 'Begin', downstream: ['Retrieval:kb'] },
        'Retrieval:kb': {
          name: 'Retrieval',
          params: { dataset_ids: [datasetId], top_n: 2, similarity_threshold: 0, rerank_id: 'panel-rerank@Jina', max_retries: 2, delay_after_error: 0.1 },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{Retrieval:kb@formalized_content}'] } },
      }),
    );
    peer.failEmbeddings(1);
    const runId = await startRun(h, agentId, { query: 'When are refunds paid?' });
    const { page, errors } = await browser.page();
    await signIn(page, h.base, h.key);
    await page.goto(`${h.base}/ui/#/runs/${runId}`);
    await expect.poll(() => runStatus(page), { timeout: 60_000 }).toBe('finished');
    await page.locator('svg.graph [data-node="Retrieval:kb"]').click();
    await page.locator('[data-panel-node="Retrieval:kb"] [data-role=call-panel] > summary').click();
    const calls = page.locator('[data-role=calls] .model-call');
    await expect.poll(() => calls.count(), { timeout: 10_000 }).toBe(2);

    const embedding = calls.nth(0);
    expect(await embedding.getAttribute('data-kind')).toBe('embedding');
    expect(await embedding.locator('summary').first().textContent()).toMatch(/^Call 1 · embedding · panel-embed · 7 tokens · .* · 1 retry$/);
    const [failed, ok] = [embedding.locator('.attempt').nth(0), embedding.locator('.attempt').nth(1)];
    expect(await failed.locator('[data-role=call-error]').textContent()).toContain('embedding backend restarting');
    expect(await ok.locator('[data-role=kind]').textContent()).toBe('embedding');
    expect(await ok.locator('[data-role=model]').textContent()).toBe('panel-embed');
    expect(await ok.locator('[data-role=query]').textContent()).toBe('When are refunds paid?');
    expect(await ok.locator('[data-role=tokens]').textContent()).toBe(`${EMBED_TOKENS_PER_TEXT} tokens`);
    expect(await ok.locator('[data-role=duration]').textContent()).toMatch(/\d+ ms|s$/);

    const rerank = calls.nth(1);
    expect(await rerank.getAttribute('data-kind')).toBe('rerank');
    expect(await rerank.locator('[data-role=kind]').textContent()).toBe('rerank');
    expect(await rerank.locator('[data-role=model]').textContent()).toBe('panel-rerank@Jina');
    expect(await rerank.locator('[data-role=documents]').textContent()).toBe('2');
    expect(await rerank.locator('[data-role=tokens]').textContent()).toBe(`${RERANK_TOKENS} tokens`);
    expect(await rerank.locator('details.messages > summary').textContent()).toBe('Documents sent (2)');
    await ok.scrollIntoViewIfNeeded();
    await screenshot(page, 'run-view-retrieval-calls');
    await expectNoSeriousViolations(page, 'run page, model call panel of a Retrieval');
    expect(errors).toEqual([]);
  }, 120_000);
});
