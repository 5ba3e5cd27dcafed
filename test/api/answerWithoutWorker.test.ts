/**
 * A form answer for a run whose workers are gone (issue 38, item 4). It used to wait in Temporal
 * until a worker of the run's version came back (over 330 s without an HTTP answer). Now the API
 * answers 503 with Retry-After within its bound, and the same answer repeated once a worker is
 * back resumes the run, applied once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { startWorker } from '../helpers/temporal';

/** The answer's bound (FORM_ANSWER_WAIT_MS), short here: the test waits it out once (the default is 30 s). */
const ANSWER_WAIT_MS = 5_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ httpLimits: { formAnswerWaitMs: ANSWER_WAIT_MS } });
});
afterAll(async () => h?.close());

describe('a form answer while no worker of the run is running', () => {
  it('answers 503 with Retry-After within its bound, and the answer repeated later resumes the run once', async () => {
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
      'UserFillUp:ask': { name: 'UserFillUp', params: { tips: 'Who?', inputs: { who: { type: 'line', optional: false } } }, downstream: ['Message:ok'] },
      'Message:ok': { name: 'Message', params: { content: ['Approved by {UserFillUp:ask@who}.'] } },
    });
    const agentId = ((await api(h, 'POST', '/api/v1/agents', { body: { title: `no worker ${Date.now()}`, dsl: canvas } })).body as { data: { id: string } })
      .data.id;
    const started = (await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: 'go' } })).body as { task_id: string };
    const taskId = started.task_id;
    for (let waited = 0; ((await api(h, 'GET', `/api/v1/runs/${taskId}`)).body as { status: string }).status !== 'paused'; waited += 100) {
      if (waited > 30_000) throw new Error('the run never paused');
      await new Promise((r) => setTimeout(r, 100));
    }

    // Every worker of the run stops (a version retired while its run waited at a form).
    await h.worker.stop();
    const asked = Date.now();
    const res = await fetch(`${h.base}/api/v1/runs/${taskId}/inputs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { who: 'Ada' } }),
      signal: AbortSignal.timeout(90_000),
    });
    const waitedMs = Date.now() - asked;
    process.stdout.write(`[answer without worker] HTTP ${res.status} after ${waitedMs} ms\n`);
    expect(res.status).toBe(503);
    // Within its bound (plus the slack of a loaded machine), not held until a worker returns.
    expect(waitedMs).toBeLessThan(ANSWER_WAIT_MS + 25_000);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(String(((await res.json()) as { message: string }).message)).toMatch(/worker/);

    // A worker of the run comes back; the answer repeated resumes the run, once.
    h.worker = await startWorker({ nativeConnection: h.temporal.nativeConnection, store: h.store, llmBaseUrl: h.llm.url, taskQueue: h.worker.taskQueue });
    const again = await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { who: 'Ada' } } });
    expect(again.status, again.text).toBe(202);
    const events = parseSse((await api(h, 'GET', `/api/v1/runs/${taskId}/events`)).text)
      .filter((m) => m.json)
      .map((m) => m.json!);
    expect(events.at(-1)!.event).toBe('workflow_finished');
    const shown = events.filter((e) => e.event === 'message').map((e) => (e.data as { content: string }).content);
    expect(shown.join('')).toBe('Approved by Ada.');
    expect(events.filter((e) => e.event === 'workflow_finished')).toHaveLength(1);
  }, 180_000);
});
