/**
 * A fork inside an Iteration item over HTTP (docs/API.md, "Time travel"): it restarts that item,
 * reuses the earlier items' results and runs the later ones; sequential and parallel Iterations.
 * A run kept without snapshots (RUN_SNAPSHOTS=off) is refused naming `$.from`, offering replay.
 * Real dev server, scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { createAgent, startRun, travel, waitFor } from '../helpers/travelKit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  // Each item's model call answers `<old|new>-<item>`.
  h.llm.when((call) => {
    const m = /MARK-item-(old|new) (\w+)/.exec(JSON.stringify(call.body.messages));
    return m ? { content: `${m[1]}-${m[2]}` } : undefined;
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** Begin → Iteration over the query's JSON list (an LLM per item) → Message listing the labels. */
const iterationCanvas = (maxConcurrency: number) =>
  dsl({
    begin: { name: 'Begin', downstream: ['Iteration:it'] },
    'Iteration:it': {
      name: 'Iteration',
      params: { items_ref: 'sys.query', max_concurrency: maxConcurrency, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
      downstream: ['Message:m'],
    },
    'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
    'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-item-old {IterationItem:item@item}' } },
    'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
  });

const itemPrompts = (from: number) =>
  h.llm.calls
    .slice(from)
    .map((c) => /MARK-item-(?:old|new) (\w+)/.exec(JSON.stringify(c.body.messages))?.[1])
    .filter(Boolean)
    .sort();

describe.each([
  ['a sequential Iteration', 0],
  ['a parallel Iteration (max_concurrency 2)', 2],
])('a fork inside an item of %s', (_name, maxConcurrency) => {
  it('restarts that item: the model sees items 2 and 3 only, item 1 is the source’s, the answer has the edit', async () => {
    const agentId = await createAgent(h, `items ${maxConcurrency}`, iterationCanvas(maxConcurrency));
    const source = await startRun(h, agentId, '["one","two","three"]');
    const sourceRun = await waitFor(h, source, ['finished', 'failed']);
    expect(sourceRun.status, JSON.stringify(sourceRun)).toBe('finished');
    expect(sourceRun.result?.content).toBe('["old-one", "old-two", "old-three"]');

    const callsAtFork = h.llm.calls.length;
    const fork = await travel(h, source, 'fork', {
      from: 'LLM:label',
      item: 1,
      params: { 'LLM:label': { sys_prompt: 'MARK-item-new {IterationItem:item@item}' } },
    });
    const forked = await waitFor(h, fork.task_id, ['finished', 'failed']);
    expect(forked.status, JSON.stringify(forked)).toBe('finished');
    expect(itemPrompts(callsAtFork)).toEqual(['three', 'two']);
    // Item 1's result is the source's; items 2 and 3 answered the edited prompt.
    expect(forked.result?.content).toBe('["old-one", "new-two", "new-three"]');
    expect(forked).toMatchObject({ forked_from: { task_id: source, component_id: 'LLM:label', item: 1 } });
    // A sequential Iteration's earlier item is counted as saved (a parallel one records its items' usage as one).
    if (maxConcurrency === 0) expect(fork.savings).toMatchObject({ calls_avoided: 1, model_calls_avoided: 1 });
  });

  it('refuses an item the Iteration never had, naming $.item', async () => {
    const agentId = await createAgent(h, `items bad ${maxConcurrency}`, iterationCanvas(maxConcurrency));
    const source = await startRun(h, agentId, '["one","two"]');
    await waitFor(h, source, ['finished']);
    const res = await api(h, 'POST', `/api/v1/runs/${source}/fork`, { body: { from: 'LLM:label', item: 5 } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body)).toContain('$.item');
  });
});

describe('a run kept without snapshots', () => {
  it('cannot be forked: 400 naming $.from, saying it has no snapshots and offering replay', async () => {
    const agentId = await createAgent(h, 'no snapshots', iterationCanvas(0));
    h.deps.runSettings.snapshots = false; // RUN_SNAPSHOTS=off
    let source: string;
    try {
      source = await startRun(h, agentId, '["one"]');
    } finally {
      delete h.deps.runSettings.snapshots;
    }
    await waitFor(h, source, ['finished']);
    const res = await api(h, 'POST', `/api/v1/runs/${source}/fork`, { body: { from: 'LLM:label' } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const text = JSON.stringify(res.body);
    expect(text).toContain('$.from');
    expect(text).toContain('no snapshots');
    expect(text).toContain(`/api/v1/runs/${source}/replay`);
  });
});
