/**
 * Durability of a parallel Iteration: the process running the API and the worker is SIGKILLed
 * mid-fan-out, with some items finished and others in flight. After a restart on the same data
 * folder the run finishes with every item in order, and no item that had finished is run again
 * (its model call is in the run's history; only the items in flight are made again).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { streamSse } from '../helpers/appHarness';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';

const KEY = `parallel-crash-key-${randomUUID()}`;
const ITEMS = Array.from({ length: 12 }, (_, i) => i);
/** Items below this answer at once; the others wait until the restart. */
const FINISHED_BEFORE_CRASH = 6;

let llm: ScriptedLlm;
let dataDir: string;
let port: number;
let child: AppProcess | null = null;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-parallel-crash-'));
  port = await freePort();
});

afterAll(async () => {
  await child?.kill();
  await llm?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const itemOf = (messages: unknown) => Number(/Crash item (\d+)\./.exec(JSON.stringify(messages))?.[1] ?? -1);

describe('a crash mid-fan-out of a parallel Iteration', () => {
  it('finishes after a restart without repeating any finished item', async () => {
    const env = appEnv({ port, dataDir, apiKey: KEY, llmUrl: llm.url, temporalAddress: inject('temporalAddress') });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    let release!: () => void;
    const restarted = new Promise<void>((r) => (release = r));
    llm.when((call) => {
      const n = itemOf(call.body.messages);
      if (n < 0) return undefined;
      return n < FINISHED_BEFORE_CRASH ? { content: `crash-${n}` } : { until: restarted, then: { content: `crash-${n}` } };
    });

    child = startAppProcess(env);
    await waitHealthy(base, child);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Iteration:it'] },
      'Iteration:it': {
        name: 'Iteration',
        params: { items_ref: 'sys.query', max_concurrency: 3, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
        downstream: ['Message:m'],
      },
      'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
      'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: 'Crash item {IterationItem:item@item}.' } },
      'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'parallel crash', dsl: canvas }) })
    ).json()) as { data: { id: string } };
    // The run's id comes with the first event; the fan-out goes on while this test waits.
    const opened = await streamSse(
      `${base}/api/v1/agents/chat/completions`,
      { method: 'POST', headers: auth, body: JSON.stringify({ agent_id: created.data.id, query: JSON.stringify(ITEMS), stream: true }) },
      (m) => typeof m.json?.task_id === 'string',
    );
    const runId = String(opened.at(-1)!.json!.task_id);

    // Three items are held in flight only once the six before them finished: a lane takes its next
    // item when the workflow has recorded its last one's result.
    await llm.waitForCalls(FINISHED_BEFORE_CRASH + 3, 120_000);
    await child.kill();

    release();
    child = startAppProcess(env);
    await waitHealthy(base, child);
    const after = await streamSse(`${base}/api/v1/runs/${runId}/events`, { headers: auth }, () => false);
    expect(after.at(-1)!.data).toBe('[DONE]');
    const status = (await (await fetch(`${base}/api/v1/runs/${runId}`, { headers: auth })).json()) as { status: string };
    expect(status.status).toBe('finished');

    const calls = (n: number) => llm.calls.filter((c) => itemOf(c.body.messages) === n).length;
    for (let n = 0; n < FINISHED_BEFORE_CRASH; n++) expect(calls(n), `model calls of finished item ${n}`).toBe(1);
    for (let n = FINISHED_BEFORE_CRASH; n < ITEMS.length; n++) expect(calls(n)).toBeGreaterThanOrEqual(1);
    const finished = after.find((m) => m.json?.event === 'workflow_finished')!.json!.data as { outputs: { content: string } };
    expect(JSON.parse(finished.outputs.content)).toEqual(ITEMS.map((i) => `crash-${i}`));
  }, 400_000);
});
