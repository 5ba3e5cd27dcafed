/** Model call traces (migrations 16, 20) on both backends: an attempt recorded once, read back whole with its kind, per run and node, tenant-scoped. */
import { expect, it } from 'vitest';
import type { CallTrace } from '../../../src/io/store/contract';
import { freshTenant, type StoreContext } from './context';

const trace = (tenantId: string, id: string, over: Partial<CallTrace> = {}): CallTrace => ({
  id,
  kind: 'chat',
  tenantId,
  runId: 'run-1',
  nodeId: 'Agent:a',
  activityId: '7',
  model: 'm',
  attempt: 1,
  outcome: 'ok',
  request: {
    messages: [
      { role: 'system', content: 'You help.' },
      { role: 'user', content: 'x'.repeat(10), folded_chars: 20_000 },
    ],
    params: { temperature: 0.2 },
    tools: ['search'],
  },
  response: { content: 'ok', reasoning_chars: 0, finish_reason: 'stop', tool_calls: [{ id: 'c1', name: 'search', arguments: '{"q":"a"}' }] },
  error: null,
  startedAt: 1_000,
  capacityWaitMs: 250.5,
  firstTokenMs: 40,
  durationMs: 300,
  promptTokens: 12,
  completionTokens: 3,
  usageReported: true,
  cost: 0.00012,
  priced: true,
  ...over,
});

export function callTraceCases(ctx: StoreContext): void {
  it('keeps each attempt once, whole, in start order, per run and node, and only for its tenant', async () => {
    const t = freshTenant();
    const first = trace(t, `${t}:1`, { outcome: 'failed', response: null, error: 'LLM_UNAVAILABLE: overloaded', firstTokenMs: null, startedAt: 1_000 });
    const second = trace(t, `${t}:2`, { attempt: 2, startedAt: 2_000 });
    await ctx.store.callTraces.record(second);
    await ctx.store.callTraces.record(first);
    await ctx.store.callTraces.record({ ...first, error: 'a second write of the same attempt' });
    await ctx.store.callTraces.record(trace(t, `${t}:3`, { nodeId: 'LLM:b', startedAt: 3_000 }));
    expect(await ctx.store.callTraces.list(t, 'run-1', 'Agent:a')).toEqual([first, second]);
    expect((await ctx.store.callTraces.list(t, 'run-1')).map((x) => x.id)).toEqual([`${t}:1`, `${t}:2`, `${t}:3`]);
    expect(await ctx.store.callTraces.list(freshTenant(), 'run-1')).toEqual([]);
  });

  it("keeps an embedding or rerank request's kind beside the chat attempts of its run", async () => {
    const t = freshTenant();
    const rerank = trace(t, `${t}:r`, {
      kind: 'rerank',
      activityId: '9:rerank',
      model: 'rerank-small@Jina',
      request: {
        messages: [
          { role: 'query', content: 'what?' },
          { role: 'document', content: 'a doc' },
        ],
        params: { documents: 1 },
        tools: [],
      },
      response: { content: '1 scores, the best 0.900', reasoning_chars: 0, finish_reason: null, tool_calls: [] },
      completionTokens: 0,
      cost: 0,
      priced: false,
      startedAt: 5_000,
    });
    await ctx.store.callTraces.record(trace(t, `${t}:c`));
    await ctx.store.callTraces.record(rerank);
    expect((await ctx.store.callTraces.list(t, 'run-1')).map((x) => x.kind)).toEqual(['chat', 'rerank']);
    expect((await ctx.store.callTraces.list(t, 'run-1')).at(-1)).toEqual(rerank);
  });
}
