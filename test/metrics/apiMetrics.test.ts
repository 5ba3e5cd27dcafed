/**
 * `/metrics` of a process running the API and a worker (the in-process harness: the real Fastify
 * app, a real worker on the dev server, the scripted model over HTTP): the page is Prometheus text
 * without an API key, and a run moves the series it should: runs started and finished, the
 * running gauge while it runs, an open SSE stream counted while it is open, node durations by
 * component type, and event-log write latency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, streamSse, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { eventually as eventuallyFrom, has, scrape, sumOf, type Series } from './promText';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close(), 120_000);

const metrics = async (): Promise<Series[]> => {
  const page = await scrape(`${h.base}/metrics`);
  expect(page.status, page.text.slice(0, 500)).toBe(200);
  return page.series;
};
const eventually = (check: (s: Series[]) => boolean, what: string, timeoutMs?: number) => eventuallyFrom(metrics, check, what, timeoutMs);

describe('GET /metrics', () => {
  it('answers Prometheus text without an API key, with the process and run series declared', async () => {
    const page = await scrape(`${h.base}/metrics`);
    expect(page.status).toBe(200);
    expect(page.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'agent_canvas_runs_started_total',
      'agent_canvas_runs_ended_total',
      'agent_canvas_runs_active',
      'agent_canvas_node_duration_seconds',
      'agent_canvas_activity_retries_total',
      'agent_canvas_sse_clients',
      'agent_canvas_event_append_seconds',
      'process_cpu_user_seconds_total',
    ]) {
      expect(page.text, name).toContain(`# TYPE ${name} `);
    }
    // The store answered: both active statuses are reported, even at zero.
    expect(has(page.series, 'agent_canvas_runs_active', { status: 'running' })).toBe(true);
    expect(has(page.series, 'agent_canvas_runs_active', { status: 'paused' })).toBe(true);
  });

  it('counts a run from start to finish: started, running while it runs, its SSE client, node durations, event writes, finished', async () => {
    const before = await metrics();
    const sseBefore = sumOf(before, 'agent_canvas_sse_clients');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.llm.whenPromptIncludes('Metered story.', { until: gate, then: { content: 'A short metered story.' } });
    const created = await api(h, 'POST', '/api/v1/agents', {
      body: {
        title: `metered ${Date.now()}`,
        dsl: dsl({
          begin: { name: 'Begin', downstream: ['LLM:story'] },
          'LLM:story': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: 'Metered story.' }, downstream: ['Message:out'] },
          'Message:out': { name: 'Message', params: { content: ['{LLM:story@content}'] } },
        }),
      },
    });
    const agentId = (created.body as { data: { id: string } }).data.id;

    const stream = streamSse(
      `${h.base}/api/v1/agents/chat/completions`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, query: 'go', stream: true }),
      },
      () => undefined,
    );
    // Released whatever happens, so a failed expectation does not leave the run (and close()) hanging.
    setTimeout(() => release(), 200_000).unref();
    await h.llm.waitForCalls(1, 120_000);
    // The model is answering: the run is running and its stream is open.
    const during = await eventually((s) => sumOf(s, 'agent_canvas_sse_clients') >= sseBefore + 1, 'the open SSE stream', 60_000);
    expect(sumOf(during, 'agent_canvas_runs_active', { status: 'running' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(during, 'agent_canvas_runs_started_total')).toBe(sumOf(before, 'agent_canvas_runs_started_total') + 1);

    release();
    const events = await stream;
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(events.some((e) => e.json?.event === 'workflow_finished')).toBe(true);

    const after = await eventually(
      (s) => sumOf(s, 'agent_canvas_runs_ended_total', { status: 'finished' }) === sumOf(before, 'agent_canvas_runs_ended_total', { status: 'finished' }) + 1,
      'the finished run',
      120_000,
    );
    expect(sumOf(after, 'agent_canvas_runs_ended_total', { status: 'failed' })).toBe(sumOf(before, 'agent_canvas_runs_ended_total', { status: 'failed' }));
    // One node_finished per component: begin, the LLM, the Message, each under its component type.
    for (const component of ['Begin', 'LLM', 'Message']) {
      const count = (s: Series[]) => sumOf(s, 'agent_canvas_node_duration_seconds_count', { component });
      expect(count(after) - count(before), component).toBe(1);
    }
    expect(sumOf(after, 'agent_canvas_node_duration_seconds_sum', { component: 'LLM' })).toBeGreaterThan(
      sumOf(before, 'agent_canvas_node_duration_seconds_sum', { component: 'LLM' }),
    );
    // Every event of the run went through the event log: at least the announcement, the steps and the end.
    const writes = (s: Series[]) => sumOf(s, 'agent_canvas_event_append_seconds_count', { outcome: 'ok' });
    expect(writes(after) - writes(before)).toBeGreaterThanOrEqual(3);
    // The stream ended: it is no longer counted.
    await eventually((s) => sumOf(s, 'agent_canvas_sse_clients') === sseBefore, 'the closed SSE stream');
  }, 300_000);
});
