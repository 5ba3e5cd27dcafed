/**
 * A worker frozen (SIGSTOP) mid-stream past its heartbeat timeout while a second worker takes its
 * model calls over, then let go (SIGCONT): the hostile run's freeze scenario at small scale (issue
 * 38; `npm run hostile -- --scenario freeze` is the full one). The frozen worker's attempts wake
 * up still streaming into the slots their retries now own; the store refuses them (stream fencing,
 * migration 10), so every run's live SSE text, a later replay and its stored result are the
 * model's answer exactly, and no model call whose activity completed is made again.
 *
 * Both workers are processes of their own on PostgreSQL; the API, the store and the model are in
 * this process.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { startPostgres } from '../helpers/postgres';
import { followRun } from '../helpers/runFollower';
import { startWorkerProcess, type WorkerProcess } from '../helpers/workerProcess';
import { modelRoundCompletions, tallyRounds } from '../../scripts/chaos/rounds';
import { callsTrace, liveTrace, storedTrace } from '../../scripts/hostile/trace';
import { shownText } from '../../scripts/hostile/verdict';

const RUNS = 3;
const HEARTBEAT_TIMEOUT_MS = 3_000;
const FREEZE_MS = 8_000;
const ANSWER = Array.from({ length: 80 }, (_, i) => `tok${i}`).join(' ');
const PROMPT = 'Frozen worker takeover.';

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[test/durability/frozenWorker] skipped: ${postgres.skipped}`);

let h: Harness;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  if (!('url' in postgres)) return;
  h = await startHarness({ databaseUrl: postgres.url, runSettings: { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS } });
  // The harness's in-process worker gives way to two worker processes on its queue.
  await h.worker.stop();
  const env = {
    temporalAddress: inject('temporalAddress'),
    taskQueue: h.worker.taskQueue,
    databaseUrl: postgres.url,
    llmUrl: h.llm.url,
    bundlePath: inject('workflowBundlePath'),
  };
  workers.push(...(await Promise.all([startWorkerProcess(env), startWorkerProcess(env)])));
  h.worker = { taskQueue: h.worker.taskQueue, stop: async () => void (await Promise.all(workers.map((w) => w.kill()))) };
}, 180_000);

afterAll(async () => {
  await h?.close();
  if ('stop' in postgres) await postgres.stop();
});

/** Which worker process runs the run's model stream now (Temporal records `<pid>@<host>`). */
async function holderOf(client: Client, workflowId: string): Promise<WorkerProcess | undefined> {
  const described = await client.workflow.getHandle(workflowId).describe();
  const stream = described.raw.pendingActivities?.find((p) => p.activityType?.name === 'llmChat');
  const pid = Number(stream?.lastWorkerIdentity?.split('@')[0]);
  return workers.find((w) => w.proc.pid === pid);
}

describe.skipIf('skipped' in postgres)('a worker frozen mid-stream past its heartbeat timeout', () => {
  it('leaves every run’s live text, replay and result the model’s answer, with no finished call made again', async () => {
    h.llm.whenPromptIncludes(PROMPT, { content: ANSWER, delayMs: 100 });
    const agent = await api(h, 'POST', '/api/v1/agents', {
      body: {
        title: `frozen ${Date.now()}`,
        dsl: dsl({
          begin: { name: 'Begin', downstream: ['LLM:a'] },
          'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: PROMPT, max_retries: 2, delay_after_error: 1 }, downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
        }),
      },
    });
    const agentId = (agent.body as { data: { id: string } }).data.id;
    const queries = Array.from({ length: RUNS }, (_, i) => `frozen run ${i}`);
    const runIds: string[] = [];
    for (const query of queries)
      runIds.push(((await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query } })).body as { task_id: string }).task_id);
    const headers = { authorization: `Bearer ${h.key}` };
    const lives = runIds.map((runId) => followRun({ runId, bases: () => [h.base], headers, timeoutMs: 120_000 }));
    const callsOf = (q: string) => h.llm.calls.filter((c) => c.body.messages.some((m) => m.content === q));
    while (queries.some((q) => callsOf(q).length === 0)) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1_000));

    // Freeze the worker that holds the most streams, past the heartbeat timeout.
    const workflowIds = await Promise.all(runIds.map(async (id) => ((await api(h, 'GET', `/api/v1/runs/${id}`)).body as { workflow_id: string }).workflow_id));
    const holders = await Promise.all(workflowIds.map((id) => holderOf(h.temporal.client, id)));
    const frozen = [...workers].sort((a, b) => holders.filter((x) => x === b).length - holders.filter((x) => x === a).length)[0]!;
    const hit = holders.filter((x) => x === frozen).length;
    const t0 = Date.now();
    console.log(`[frozen worker] freeze at +0 s`);
    frozen.proc.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, FREEZE_MS));
    frozen.proc.kill('SIGCONT');

    const followed = await Promise.all(lives);
    const replays = await Promise.all(runIds.map((runId) => followRun({ runId, bases: () => [h.base], headers, timeoutMs: 60_000 })));
    const details = await Promise.all(
      runIds.map(async (id) => (await api(h, 'GET', `/api/v1/runs/${id}`)).body as { status: string; result: { content: string } | null }),
    );
    const repeatedFinished = await Promise.all(
      queries.map(async (q, i) => tallyRounds(callsOf(q), () => 1, await modelRoundCompletions(h.temporal.client, workflowIds[i]!)).repeatedFinished),
    );
    const exact = runIds.filter(
      (_, i) => shownText(followed[i]!.events) === ANSWER && shownText(replays[i]!.events) === ANSWER && details[i]!.result?.content === ANSWER,
    );
    console.log(
      `[frozen worker] ${hit}/${RUNS} streams on the frozen worker; exact ${exact.length}/${RUNS}; model calls ${queries.map((q) => callsOf(q).length).join(', ')}; ` +
        `finished calls made again ${repeatedFinished.reduce((a, b) => a + b, 0)}`,
    );
    for (const [i, runId] of runIds.entries())
      if (!exact.includes(runId))
        console.log(
          `[frozen worker] run ${i} not exact\n  live:   ${liveTrace(followed[i]!.events)}\n  stored: ${await storedTrace((postgres as { url: string }).url, runId)}\n  calls:  ${callsTrace(callsOf(queries[i]!), t0)}`,
        );
    expect(hit).toBeGreaterThan(0);
    expect(details.map((d) => d.status)).toEqual(Array(RUNS).fill('finished'));
    for (const [i] of runIds.entries()) {
      expect(shownText(followed[i]!.events), `live text of run ${i}`).toBe(ANSWER);
      expect(shownText(replays[i]!.events), `replay of run ${i}`).toBe(ANSWER);
      expect(details[i]!.result?.content).toBe(ANSWER);
    }
    expect(repeatedFinished).toEqual(Array(RUNS).fill(0));
    // The frozen worker's attempts were retried elsewhere: their calls were made again.
    expect(queries.filter((q) => callsOf(q).length > 1).length).toBeGreaterThanOrEqual(hit);
  }, 240_000);
});
