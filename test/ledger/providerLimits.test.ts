/**
 * PROVIDER_LIMITS shared by two workers through the store: model calls past a provider's requests
 * per minute wait (heartbeating) for the next minute instead of failing, and no clock minute sees
 * more requests at the scripted model than the limit.
 */
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { startWorker, type RunningWorker } from '../helpers/temporal';

const env = { PROVIDER_LIMITS: JSON.stringify({ OpenAI: { rpm: 2 } }) };
let h: Harness;
let second: RunningWorker;
let secondConnection: NativeConnection;
beforeAll(async () => {
  h = await startHarness({ env });
  // A second worker on the same task queue and store: the limit is the deployment's, not a worker's.
  // Its own connection, as a worker of another process has (one connection runs one worker per queue).
  secondConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  second = await startWorker({ nativeConnection: secondConnection, store: h.store, llmBaseUrl: h.llm.url, taskQueue: h.worker.taskQueue, env });
}, 120_000);
afterAll(async () => {
  await second?.stop();
  await secondConnection?.close();
  await h?.close();
});

describe('provider limits', () => {
  it('make calls past the requests per minute wait for the next minute, across two workers, never exceeding the limit', async () => {
    h.llm.whenPromptIncludes('Limited call.', { content: 'within limits' });
    const created = await api(h, 'POST', '/api/v1/agents', {
      body: {
        title: `limited ${Date.now()}`,
        dsl: dsl({
          begin: { name: 'Begin', downstream: ['LLM:a'] },
          'LLM:a': { name: 'LLM', params: { llm_id: 'limited@OpenAI', sys_prompt: 'Limited call.' }, downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
        }),
      },
    });
    const agentId = (created.body as { data: { id: string } }).data.id;
    const runIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: `q${i}` } });
      expect(res.status, res.text).toBe(202);
      runIds.push((res.body as { id: string }).id);
    }
    const deadline = Date.now() + 150_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(runIds.map(async (id) => ((await api(h, 'GET', `/api/v1/runs/${id}`)).body as { status: string }).status));
      if (statuses.every((s) => s !== 'running')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(statuses).toEqual(['finished', 'finished', 'finished', 'finished']);
    const calls = h.llm.calls.filter((c) => JSON.stringify(c.body.messages).includes('Limited call.'));
    expect(calls).toHaveLength(4);
    const perMinute = new Map<number, number>();
    for (const c of calls) perMinute.set(Math.floor(c.startedAt / 60_000), (perMinute.get(Math.floor(c.startedAt / 60_000)) ?? 0) + 1);
    process.stdout.write(`requests per clock minute at the model: ${JSON.stringify([...perMinute.values()])} (limit 2)\n`);
    expect(Math.max(...perMinute.values())).toBeLessThanOrEqual(2);
    expect(perMinute.size).toBeGreaterThanOrEqual(2);
  }, 200_000);
});
