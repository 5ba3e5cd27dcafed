import { describe, expect, it } from 'vitest';
import { compile } from '../../../test/helpers/canvasKit';
import { answerResult, llmRequest } from '../../../test/helpers/engineDriver';
import { ITEMS_PER_ROUND } from '../components/Iteration';
import { runInProcess } from './inProcess';
import type { CallResult, EngineCall } from './step';

/** Begin → Iteration over sys.query (each item's body: one model call) → Message of the labels. */
function iterationCanvas(maxConcurrency: unknown, body: 'llm' | 'form' = 'llm') {
  return compile({
    begin: { name: 'Begin', downstream: ['Iteration:it'] },
    'Iteration:it': {
      name: 'Iteration',
      params: { items_ref: 'sys.query', max_concurrency: maxConcurrency, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
      downstream: ['Message:m'],
    },
    'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: [body === 'form' ? 'UserFillUp:ask' : 'LLM:label'] },
    ...(body === 'form'
      ? {
          'UserFillUp:ask': {
            name: 'UserFillUp',
            parent_id: 'Iteration:it',
            params: { tips: 'OK?', inputs: { why: { type: 'line', optional: false } } },
            downstream: ['LLM:label'],
          },
        }
      : {}),
    'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: 'Label item {IterationItem:item@item}.' } },
    'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
  });
}

/** A model that answers `label-N`, item N after `delays[N]` ms, and counts the calls in flight. */
function slowModel(delays: number[], failing: number | null = null) {
  let inFlight = 0;
  const seen = { maxInFlight: 0, calls: 0, finished: [] as number[] };
  const exec = async (call: EngineCall): Promise<CallResult> => {
    const n = Number(/Label item (\d+)/.exec(JSON.stringify(llmRequest(call).messages))?.[1]);
    inFlight += 1;
    seen.calls += 1;
    seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, delays[n] ?? 0));
    inFlight -= 1;
    seen.finished.push(n);
    if (n === failing) return { callId: call.callId, ok: false, error: 'the model refused' };
    return { callId: call.callId, ok: true, value: answerResult(`label-${n}`) };
  };
  return { exec, seen };
}

const items = [0, 1, 2, 3, 4, 5, 6, 7];
/** Item 0 slowest, the last fastest: they finish in reverse order when run side by side. */
const reversed = items.map((i) => (items.length - i) * 15);

describe('a parallel Iteration (max_concurrency, RAGFlow Go Parallel semantics)', () => {
  it('keeps the items’ order in its outputs when they finish out of order', async () => {
    const { exec, seen } = slowModel(reversed);
    const { state } = await runInProcess(iterationCanvas(8), { runId: 'r', messageId: 'm', query: items }, exec);
    expect(state.status).toBe('finished');
    expect(seen.finished).not.toEqual(items);
    expect(state.outputs['Iteration:it']!.labels).toEqual(items.map((i) => `label-${i}`));
    expect(state.outputs['Message:m']!.content).toBe(JSON.stringify(items.map((i) => `label-${i}`)).replace(/,/g, ', '));
  });

  it('runs at most max_concurrency items at once, and that many', async () => {
    const { exec, seen } = slowModel(items.map(() => 20));
    const { state } = await runInProcess(iterationCanvas(3), { runId: 'r', messageId: 'm', query: items }, exec, { maxParallel: 1 });
    expect(state.status).toBe('finished');
    expect(seen.maxInFlight).toBe(3);
    expect(seen.calls).toBe(items.length);
  });

  // RAGFlow's Go intFrom reads numbers only: text is as if absent.
  it.each([[0], [undefined], [-2], ['x'], ['4']])('runs the items one at a time when max_concurrency is %s', async (limit) => {
    const { exec, seen } = slowModel(reversed);
    const { state } = await runInProcess(iterationCanvas(limit), { runId: 'r', messageId: 'm', query: items }, exec);
    expect(seen.finished).toEqual(items);
    expect(seen.maxInFlight).toBe(1);
    expect(state.outputs['Iteration:it']!.labels).toEqual(items.map((i) => `label-${i}`));
  });

  it('truncates a float, as RAGFlow reads it', async () => {
    const { exec, seen } = slowModel(items.map(() => 10));
    await runInProcess(iterationCanvas(4.7), { runId: 'r', messageId: 'm', query: items }, exec);
    expect(seen.maxInFlight).toBe(4);
  });

  it('fails with the failed item named, as RAGFlow does (item N: …)', async () => {
    const { exec } = slowModel(reversed, 2);
    const { state } = await runInProcess(iterationCanvas(4), { runId: 'r', messageId: 'm', query: items }, exec);
    expect(state.status).toBe('failed');
    expect(state.error).toBe('item 2: the model refused');
  });

  it('refuses a form inside a parallel item: it could not wait there', async () => {
    const { exec } = slowModel([]);
    const { state } = await runInProcess(iterationCanvas(2, 'form'), { runId: 'r', messageId: 'm', query: [1] }, exec);
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/item 0: a form cannot wait inside an item of a parallel Iteration/);
  });

  it('runs sequentially when the run was started before the feature (no parallelItems in its state)', async () => {
    const { exec, seen } = slowModel(reversed);
    const { state } = await runInProcess(iterationCanvas(8), { runId: 'r', messageId: 'm', query: items, parallelItems: false }, exec);
    expect(seen.finished).toEqual(items);
    expect(state.outputs['Iteration:it']!.labels).toEqual(items.map((i) => `label-${i}`));
  });

  it('counts the items’ model usage toward the Iteration and the run', async () => {
    const { exec } = slowModel(items.map(() => 0));
    const { state, events } = await runInProcess(iterationCanvas(4), { runId: 'r', messageId: 'm', query: items }, exec);
    expect(state.usage.calls).toBe(items.length);
    expect(state.usage.total_tokens).toBe(15 * items.length);
    const finished = events.filter((e) => e.event === 'node_finished').map((e) => (e.data as { component_id: string }).component_id);
    expect(finished).toEqual(['begin', 'Iteration:it', 'Message:m']);
  });

  it('fans out in rounds of ITEMS_PER_ROUND items (a workflow may hand over between them), order kept across rounds', async () => {
    const many = Array.from({ length: ITEMS_PER_ROUND * 2 + 7 }, (_, i) => i);
    const { exec, seen } = slowModel([]);
    const { state } = await runInProcess(iterationCanvas(16), { runId: 'r', messageId: 'm', query: many }, exec);
    expect(state.status).toBe('finished');
    expect(seen.calls).toBe(many.length);
    expect(state.outputs['Iteration:it']!.labels).toEqual(many.map((i) => `label-${i}`));
  });
});
