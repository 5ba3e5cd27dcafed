/**
 * A parallel Iteration (`max_concurrency`, RAGFlow's Go `Parallel`) on a real Temporal dev server
 * with the scripted model: the items' model calls run at most N at a time, and the collected list
 * keeps the items' order when they finish out of order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-parallel-iteration';

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'parallel iteration tests');
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 5000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

/** Item N of a run answers `<tag>-N` after `delay(N)` ms. */
function scriptItems(tag: string, delay: (n: number) => number): void {
  llm.when((call) => {
    const m = new RegExp(`${tag} item (\\d+)\\.`).exec(JSON.stringify(call.body.messages));
    if (!m) return undefined;
    const n = Number(m[1]);
    return { until: new Promise((r) => setTimeout(r, delay(n))), then: { content: `${tag}-${n}` } };
  });
}

async function runIteration(tag: string, items: number[], maxConcurrency: number): Promise<CanvasRunResult> {
  const canvas = await store.canvases.create({
    tenantId,
    title: `${tag} ${Date.now()}`,
    dsl: dsl({
      begin: { name: 'Begin', downstream: ['Iteration:it'] },
      'Iteration:it': {
        name: 'Iteration',
        params: { items_ref: 'sys.query', max_concurrency: maxConcurrency, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
        downstream: ['Message:m'],
      },
      'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
      'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: `${tag} item {IterationItem:item@item}.` } },
      'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
    }),
  });
  const run = await launchRun(deps, { tenantId, canvas, sessionId: null, query: items, inputs: null, files: [], userId: 'u', session: null });
  return (await temporal.client.workflow.getHandle(run.workflowId).result()) as CanvasRunResult;
}

const callsOf = (tag: string) => llm.calls.filter((c) => JSON.stringify(c.body.messages).includes(`${tag} item `));

describe('a parallel Iteration on Temporal', () => {
  it('keeps the items’ order when they finish out of order', async () => {
    const items = [0, 1, 2, 3, 4, 5];
    // The first item answers last, the last first.
    scriptItems('Order', (n) => (items.length - n) * 150);
    const result = await runIteration('Order', items, 6);
    expect(result.status).toBe('finished');
    const ends = callsOf('Order').sort((a, b) => a.endedAt! - b.endedAt!);
    expect(ends.map((c) => /Order item (\d+)/.exec(JSON.stringify(c.body.messages))![1])).not.toEqual(items.map(String));
    expect(JSON.parse(result.content)).toEqual(items.map((i) => `Order-${i}`));
  }, 120_000);

  it('has at most max_concurrency model calls open at once, and reaches it', async () => {
    const items = Array.from({ length: 12 }, (_, i) => i);
    scriptItems('Bound', () => 250);
    let open = 0;
    let most = 0;
    // Counted from the calls' own start and end times: only this test's calls.
    const result = await runIteration('Bound', items, 3);
    expect(result.status).toBe('finished');
    const edges = callsOf('Bound')
      .flatMap((c) => [
        { t: c.startedAt, d: 1 },
        { t: c.endedAt!, d: -1 },
      ])
      .sort((a, b) => a.t - b.t || a.d - b.d);
    for (const e of edges) most = Math.max(most, (open += e.d));
    expect(callsOf('Bound')).toHaveLength(items.length);
    expect(most).toBe(3);
    expect(JSON.parse(result.content)).toEqual(items.map((i) => `Bound-${i}`));
  }, 120_000);
});
