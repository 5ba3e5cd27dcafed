/**
 * The run row is a copy, the workflow the truth: a row that says `running` while its workflow
 * waits at a form (what a workflow task that wrote through its local activities and then died
 * leaves behind) is set back to `paused` by the run reconciler, and the answer is taken again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileOnce } from '../../api/services/runReconciler';
import { silentLogger } from '../../src/io/log';
import { api, parseSse, startHarness, TENANT, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const reconcile = () => reconcileOnce({ store: h.store, client: h.temporal.client, log: silentLogger, graceMs: 0, batch: 1000 });

describe('the run reconciler and a row its workflow contradicts', () => {
  it('sets a row that says running back to paused while the workflow waits at its form, then takes the answer', async () => {
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
      'UserFillUp:ask': { name: 'UserFillUp', params: { tips: 'Who?', inputs: { who: { type: 'line', optional: false } } }, downstream: ['Message:ok'] },
      'Message:ok': { name: 'Message', params: { content: ['Approved by {UserFillUp:ask@who}.'] } },
    });
    const agentId = ((await api(h, 'POST', '/api/v1/agents', { body: { title: `contradicted ${Date.now()}`, dsl: canvas } })).body as { data: { id: string } })
      .data.id;
    const first = parseSse((await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'hi', stream: true } })).text);
    const taskId = String(first.find((m) => m.json?.task_id)!.json!.task_id);
    for (let waited = 0; (await h.store.runs.get(TENANT, taskId))?.status !== 'paused'; waited += 100) {
      if (waited > 30_000) throw new Error('the run never paused');
      await new Promise((r) => setTimeout(r, 100));
    }

    // A discarded workflow task's local activity wrote `running`; the workflow still waits.
    await h.store.runs.setStatus(taskId, 'running');
    // A pass repairs it once the workflow is idle at its form (the task that paused it may still be completing).
    let repaired = 0;
    for (let waited = 0; repaired === 0 && waited < 30_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      repaired = (await reconcile()).repaired;
    }
    expect(repaired).toBeGreaterThanOrEqual(1);
    expect((await h.store.runs.get(TENANT, taskId))?.status).toBe('paused');
    // A second pass finds nothing to repair.
    await reconcile();
    expect((await h.store.runs.get(TENANT, taskId))?.status).toBe('paused');

    const answered = await api(h, 'POST', `/api/v1/runs/${taskId}/inputs`, { body: { inputs: { who: 'Ada' } } });
    expect(answered.status, answered.text).toBe(202);
    const events = parseSse((await api(h, 'GET', `/api/v1/runs/${taskId}/events`)).text)
      .filter((m) => m.json)
      .map((m) => m.json!);
    expect(events.at(-1)!.event).toBe('workflow_finished');
    expect((await h.store.runs.get(TENANT, taskId))?.status).toBe('finished');
  }, 120_000);
});
