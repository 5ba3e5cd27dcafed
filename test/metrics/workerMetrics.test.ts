/**
 * `/metrics` of separate processes (server/main.ts, AGENT_CANVAS_ROLE=api and =worker, one
 * PostgreSQL, the shared dev server, the scripted model): the worker serves its own listener on
 * METRICS_PORT with our series and the Temporal SDK's (`temporal_…`) appended; a run whose model
 * fails once moves the worker's figures (run finished, node durations, one activity retry, event
 * writes) while the API process counts the start and carries no SDK series (it runs no worker).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appEnv, freePort, startAppProcess, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startPostgres, type StartedPostgres } from '../helpers/postgres';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { waitForOutput, waitHealthStatus } from '../process/processControl';
import { eventually, has, scrape, sumOf, type Series } from './promText';

const KEY = `metrics-key-${randomUUID()}`;
const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[metrics] separate API and worker processes skipped: they share a PostgreSQL: ${postgres.skipped}`);

let llm: ScriptedLlm;
const dirs: string[] = [];
const processes: AppProcess[] = [];

beforeAll(async () => {
  llm = await startScriptedLlm();
});

afterAll(async () => {
  for (const p of processes) await p.kill();
  await llm?.stop();
  if (!('skipped' in postgres)) await postgres.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 120_000);

describe.skipIf('skipped' in postgres)('metrics of separate API and worker processes', () => {
  it('serves our series and the Temporal SDK’s on the worker’s METRICS_PORT, and moves them with a run', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const base = `http://127.0.0.1:${port}`;
    const taskQueue = `metrics-${randomUUID()}`;
    const start = (role: 'api' | 'worker') => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), `agent-canvas-metrics-${role}-`));
      dirs.push(dataDir);
      const extra = { AGENT_CANVAS_ROLE: role, DATABASE_URL: (postgres as StartedPostgres).url, TASK_QUEUE: taskQueue, METRICS_PORT: String(metricsPort) };
      const p = startAppProcess(appEnv({ port, dataDir, apiKey: KEY, llmUrl: llm.url, temporalAddress: inject('temporalAddress'), extra }));
      processes.push(p);
      return p;
    };
    const api = start('api');
    const worker = start('worker');
    await waitForOutput(worker, 'agent-canvas is running');
    expect(worker.output()).toContain(`Metrics        http://127.0.0.1:${metricsPort}/metrics`);
    await waitHealthStatus(base, api, 200);

    const workerMetrics = async () => {
      const page = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      return page;
    };
    const first = await workerMetrics();
    expect(first.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    // The SDK's own series, appended: the worker's pollers are up, so its slot gauges exist.
    expect(
      first.series.some((s) => s.name.startsWith('temporal_')),
      first.text.slice(-2000),
    ).toBe(true);
    expect(first.text).not.toContain('Temporal SDK metrics unavailable');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);

    // A model that fails once: the activity is retried by Temporal (max_retries), then answers.
    let calls = 0;
    llm.whenPromptIncludes('Flaky metered model.', () => (++calls === 1 ? { status: 500, message: 'overloaded' } : { content: 'second time lucky' }));
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:flaky'] },
      'LLM:flaky': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'Flaky metered model.', max_retries: 2, delay_after_error: 0.1 },
        downstream: ['Message:out'],
      },
      'Message:out': { name: 'Message', params: { content: ['{LLM:flaky@content}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'metrics', dsl: canvas }) })
    ).json()) as {
      data: { id: string };
    };
    const reply = (await (
      await fetch(`${base}/api/v1/agents/chat/completions`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ agent_id: created.data.id, query: 'go', stream: false }),
      })
    ).json()) as { code: number; data: { data?: { content?: string } } };
    expect(reply.code, JSON.stringify(reply)).toBe(0);
    expect(JSON.stringify(reply.data)).toContain('second time lucky');

    // The reply can reach us before the worker's closing activity has counted the run: the run's
    // end is stored (and streamed) by the statement that activity makes before it counts.
    const ended = (s: Series[]) =>
      sumOf(s, 'agent_canvas_runs_ended_total', { status: 'finished' }) - sumOf(first.series, 'agent_canvas_runs_ended_total', { status: 'finished' });
    const after: Series[] = await eventually(
      async () => (await workerMetrics()).series,
      (s) => ended(s) >= 1,
      'the finished run on the worker',
      30_000,
    );
    const delta = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(first.series, name, labels);
    expect(delta('agent_canvas_runs_ended_total', { status: 'finished' })).toBe(1);
    expect(delta('agent_canvas_node_duration_seconds_count', { component: 'LLM' })).toBe(1);
    expect(delta('agent_canvas_activity_retries_total', { activity: 'llmChat' })).toBeGreaterThanOrEqual(1);
    expect(delta('agent_canvas_event_append_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    // Temporal's view of the same work: activities executed by this worker.
    expect(after.some((s) => s.name.startsWith('temporal_activity_execution') && s.value > 0)).toBe(true);

    const apiPage = await scrape(`${base}/metrics`);
    expect(apiPage.status).toBe(200);
    expect(sumOf(apiPage.series, 'agent_canvas_runs_started_total')).toBe(1);
    expect(has(apiPage.series, 'agent_canvas_runs_active', { status: 'running' })).toBe(true);
    expect(apiPage.series.some((s) => s.name.startsWith('temporal_'))).toBe(false);
  }, 900_000);
});
