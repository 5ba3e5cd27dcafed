/**
 * Tenant admission survives the API that made runs wait: with TENANT_MAX_RUNS=1, runs started
 * through API 1 wait as rows while the first holds the place; API 1 is SIGKILLed with its watcher;
 * when the first run ends, API 2's reconciler pass (every 2 s here) finds the waiting runs and
 * starts them in turn. No run strands, none runs twice, none runs beside another.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, type Cluster, type ClusterMember } from '../helpers/cluster';
import { dsl } from '../helpers/canvasKit';
import { startPostgres, type StartedPostgres } from '../helpers/postgres';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../helpers/scriptedLlm';

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[admission restart] skipped: the processes share a PostgreSQL: ${postgres.skipped}`);

let llm: ScriptedLlm;
let cluster: Cluster | null = null;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  llm = await startScriptedLlm();
  llm.whenPromptIncludes('Admitted across restarts.', (call) =>
    JSON.stringify(call.body.messages).includes('turn 0') ? { until: held, then: { content: 'first' } } : { content: 'later' },
  );
});

afterAll(async () => {
  release();
  await cluster?.stop();
  await llm?.stop();
  if (!('skipped' in postgres)) await postgres.stop();
});

const queryOf = (c: RecordedCall) => String(c.body.messages.at(-1)?.content);

describe.skipIf('skipped' in postgres)('tenant admission across an API crash', () => {
  it('starts the runs a killed API made wait, from the other API, one at a time and in order', async () => {
    cluster = await startCluster({
      temporalAddress: inject('temporalAddress'),
      databaseUrl: (postgres as StartedPostgres).url,
      llmUrl: llm.url,
      workers: 1,
      apis: 2,
      extra: { TENANT_MAX_RUNS: '1', RUN_RECONCILE_INTERVAL_S: '2', RUN_RECONCILE_GRACE_S: '1' },
    });
    const c = cluster;
    const [api1, api2] = c.apis as [ClusterMember, ClusterMember];
    const created = await fetch(`${api1.base}/api/v1/agents`, {
      method: 'POST',
      headers: c.auth,
      body: JSON.stringify({
        title: `admission ${randomUUID()}`,
        dsl: dsl({
          begin: { name: 'Begin', downstream: ['LLM:a'] },
          'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Admitted across restarts.' }, downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
        }),
      }),
    });
    const agentId = ((await created.json()) as { data: { id: string } }).data.id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${api1.base}/api/v1/runs`, { method: 'POST', headers: c.auth, body: JSON.stringify({ agent_id: agentId, query: `turn ${i}` }) });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { task_id: string }).task_id);
    }
    const detail = async (id: string) => (await (await fetch(`${api2.base}/api/v1/runs/${id}`, { headers: c.auth })).json()) as Record<string, unknown>;
    expect((await Promise.all(ids.map(detail))).map((d) => d.waiting_for_tenant !== undefined)).toEqual([false, true, true]);

    await c.kill(api1);
    release();
    const until = Date.now() + 120_000;
    let statuses: string[] = [];
    while (Date.now() < until) {
      statuses = (await Promise.all(ids.map(detail))).map((d) => String(d.status));
      if (statuses.every((s) => s === 'finished')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(statuses).toEqual(['finished', 'finished', 'finished']);
    const calls = llm.calls.filter((call) => JSON.stringify(call.body.messages).includes('Admitted across restarts.'));
    expect(calls.map(queryOf)).toEqual(['turn 0', 'turn 1', 'turn 2']);
    // One at a time: each call started after the one before it ended.
    for (let i = 1; i < calls.length; i++) expect(calls[i]!.startedAt).toBeGreaterThanOrEqual(calls[i - 1]!.endedAt!);
  }, 300_000);
});
