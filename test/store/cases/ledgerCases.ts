/** The cost ledger's SQL on both backends: sums, a reuse counted once, and provider windows that never admit past a limit. */
import { expect, it } from 'vitest';
import type { ModelCallEntry } from '../../../src/io/store/contract';
import { freshTenant, type StoreContext } from './context';

const entry = (tenantId: string, id: string, over: Partial<ModelCallEntry> = {}): ModelCallEntry => ({
  id,
  tenantId,
  runId: 'r1',
  rootRunId: 'r1',
  sessionId: 's1',
  canvasId: 'c1',
  nodeId: 'LLM:a',
  model: 'm',
  promptTokens: 10,
  completionTokens: 5,
  usageReported: true,
  cost: 0.5,
  priced: true,
  attempt: 1,
  retry: false,
  outcome: 'ok',
  time: Date.UTC(2026, 0, 2, 12),
  ...over,
});

export function ledgerCases(ctx: StoreContext): void {
  it('sums attempts per node and in all, records an attempt once, and counts a reuse once', async () => {
    const t = freshTenant();
    await ctx.store.ledger.record(entry(t, `${t}:1`));
    await ctx.store.ledger.record(entry(t, `${t}:1`)); // the same attempt again
    await ctx.store.ledger.record(
      entry(t, `${t}:2`, { nodeId: 'LLM:b', attempt: 2, retry: true, outcome: 'failed', promptTokens: 0, completionTokens: 0, cost: 0, priced: false }),
    );
    const u = await ctx.store.ledger.usage(t, { groupBy: 'node', from: '2026-01-02', to: '2026-01-02' });
    expect(u.rows.map((r) => [r.key, r.calls, r.total_tokens])).toEqual([
      ['LLM:a', 1, 15],
      ['LLM:b', 1, 0],
    ]);
    expect(u.total).toMatchObject({ calls: 2, retries: 1, failed_calls: 1, unpriced_calls: 1, cost: 0.5 });
    expect(await ctx.store.ledger.spent('r1', t, '2026-01-02')).toEqual({
      run: expect.objectContaining({ tokens: expect.any(Number) }),
      tenantDay: { tokens: 15, cost: 0.5 },
    });
    const reuse = {
      runId: `${t}-run`,
      callId: 'c1',
      tenantId: t,
      nodeId: 'LLM:a',
      model: 'm',
      promptTokens: 10,
      completionTokens: 5,
      time: Date.UTC(2026, 0, 2),
    };
    expect(await ctx.store.ledger.recordReuse(reuse)).toBe(true);
    expect(await ctx.store.ledger.recordReuse(reuse)).toBe(false);
    expect((await ctx.store.ledger.usage(t, { groupBy: 'day' })).saved).toEqual({ calls: 1, prompt_tokens: 10, completion_tokens: 5 });
  });

  it('admits requests into a provider window up to its limit, concurrently, and no further', async () => {
    const key = `OpenAI-${freshTenant()}`;
    const taken = await Promise.all(Array.from({ length: 8 }, () => ctx.store.ledger.windows.take(key, 1000, 10, { requests: 3, tokens: null })));
    expect(taken.filter(Boolean)).toHaveLength(3);
    expect(await ctx.store.ledger.windows.take(key, 1001, 10, { requests: 3, tokens: null })).toBe(true);
    // Tokens: the first request of a window is admitted whatever its size; later ones only within the limit.
    expect(await ctx.store.ledger.windows.take(`${key}-t`, 5, 500, { requests: null, tokens: 100 })).toBe(true);
    expect(await ctx.store.ledger.windows.take(`${key}-t`, 5, 1, { requests: null, tokens: 100 })).toBe(false);
  });
}
