/**
 * A model stream that waits in the task queue because the worker's slots are full shows as
 * queued, not running: over HTTP (the run detail's node status `queued`, with how long, and the
 * `queued` list) and in the run view in Chromium (the node's state and the panel's "Queued for").
 * The worker is the product's (server/boot/worker.ts) with WORKER_MAX_ACTIVITIES 1, two runs at once.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createWorker, drainWorker } from '../../server/boot/worker';
import { silentLogger } from '../../src/io/log';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { skipBecause } from '../helpers/skip';
import { CHROMIUM, launchBrowser, screenshot, signIn } from './browser';
import { createAgent, startRun } from './kit';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROMPT = 'Queued behind a full worker.';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  // The harness's worker gives way to the product's worker with one activity slot, on the same queue.
  await h.worker.stop();
  const { worker, connection } = await createWorker({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue: h.worker.taskQueue,
    projectRoot,
    workflowBundlePath: inject('workflowBundlePath'),
    capacity: { activities: 1 },
    activities: { store: h.store, llm: llmSettingsFromEnv({ LLM_BASE_URL: h.llm.url, LLM_API_KEY: 'test' }), log: silentLogger, env: {} },
  });
  const running = worker.run();
  h.worker = {
    taskQueue: h.worker.taskQueue,
    stop: async () => {
      await drainWorker(worker, running);
      await connection.close();
    },
  };
});
afterAll(async () => {
  await h?.close();
});

interface RunDetail {
  status: string;
  nodes: Record<string, { status: string; queued_ms?: number; queued_since?: number }>;
  queued: Array<{ component_id: string | null; activity_type: string; queued_ms: number; attempt: number }>;
}

const detail = async (runId: string) => (await api(h, 'GET', `/api/v1/runs/${runId}`)).body as RunDetail;

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a node whose call waits for a worker slot', () => {
  it('is queued, with how long, while the only slot streams another run; then runs and finishes', async (t) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.llm.whenPromptIncludes(PROMPT, { until: held, then: { content: 'Served at last.', delayMs: 5 } });
    const agentId = await createAgent(
      h,
      'queued',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: PROMPT }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    );
    const runs = [await startRun(h, agentId, { query: 'first' }), await startRun(h, agentId, { query: 'second' })];
    // One model call holds the only slot; which run got it is up to Temporal.
    await until(
      'a model call',
      async () => h.llm.calls.filter((c) => JSON.stringify(c.body.messages).includes(PROMPT)).length,
      (n) => n === 1,
    );
    const both = await until(
      'one run queued',
      () => Promise.all(runs.map(detail)),
      (ds) => ds.some((d) => d.nodes['LLM:a']?.status === 'queued'),
    );
    const queuedRun = runs[both.findIndex((d) => d.nodes['LLM:a']?.status === 'queued')]!;
    const runningRun = runs.find((r) => r !== queuedRun)!;
    const queued = await detail(queuedRun);
    expect(queued.status).toBe('running');
    expect(queued.nodes['LLM:a']).toMatchObject({ status: 'queued', queued_since: expect.any(Number), queued_ms: expect.any(Number) });
    expect(queued.queued).toEqual([expect.objectContaining({ component_id: 'LLM:a', activity_type: 'llmChat', attempt: 1 })]);
    expect(['running', 'streaming']).toContain((await detail(runningRun)).nodes['LLM:a']?.status);
    // How long grows while it waits.
    const later = await until(
      'queued_ms to grow',
      () => detail(queuedRun),
      (d) => (d.nodes['LLM:a']?.queued_ms ?? 0) > (queued.nodes['LLM:a']!.queued_ms ?? 0),
    );
    expect(later.nodes['LLM:a']?.status).toBe('queued');

    if (!existsSync(CHROMIUM)) {
      release();
      skipBecause(t, `no Chromium at ${CHROMIUM} (CHROMIUM_PATH) for the run view's part`);
    }
    const browser = await launchBrowser();
    try {
      const { page, errors } = await browser.page();
      await signIn(page, h.base, h.key);
      await page.goto(`${h.base}/ui/#/runs/${queuedRun}`);
      await page.locator('svg.graph [data-node="LLM:a"][data-state="queued"]').waitFor({ timeout: 30_000 });
      await page.locator('svg.graph [data-node="LLM:a"]').click();
      await expect.poll(() => page.locator('[data-role=queued-for]').textContent(), { timeout: 10_000 }).toMatch(/^for \d/);
      await screenshot(page, 'run-view-queued');

      release();
      // It leaves the queue once the slot is free, and both runs finish.
      await page.locator('svg.graph [data-node="Message:m"][data-state="done"]').waitFor({ timeout: 60_000 });
      expect(errors).toEqual([]);
    } finally {
      release();
      await browser.close();
    }
    const finished = await until(
      'both runs finished',
      () => Promise.all(runs.map(detail)),
      (ds) => ds.every((d) => d.status === 'finished'),
    );
    expect(finished.every((d) => d.queued.length === 0 && d.nodes['LLM:a']?.status !== 'queued')).toBe(true);
  }, 180_000);
});
