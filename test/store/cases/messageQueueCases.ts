/** The message queue and agents' message policies on both backends (migration 15, src/io/store/messageQueue.ts). */
import { expect, it } from 'vitest';
import { newId } from '../../../src/io/store/time';
import { freshTenant, type StoreContext } from './context';

const request = (query: string) => ({ query, inputs: null, files: [], userId: 'u', messageId: newId() });

export function messageQueueCases(ctx: StoreContext): void {
  it('keeps an agent’s message policy, replaced when set again; none set reads null', async () => {
    const t = freshTenant();
    const canvas = newId();
    expect(await ctx.store.messageQueue.policyOf(t, canvas)).toBeNull();
    await ctx.store.messageQueue.setPolicy(t, canvas, 'enqueue');
    await ctx.store.messageQueue.setPolicy(t, canvas, 'steer');
    expect(await ctx.store.messageQueue.policyOf(t, canvas)).toBe('steer');
    expect(await ctx.store.messageQueue.policyOf(freshTenant(), canvas)).toBeNull();
  });

  it('queues a session’s messages in order with their places, and gives out only the first, to one taker at a time', async () => {
    const t = freshTenant();
    const session = newId();
    const q = ctx.store.messageQueue;
    const queue = (query: string) => q.enqueue({ id: newId(), tenant_id: t, session_id: session, canvas_id: 'c', run_id: newId(), request: request(query) });
    const first = await queue('one');
    const second = await queue('two');
    expect([first.position, second.position]).toEqual([1, 2]);
    expect(first.message.request.query).toBe('one');
    expect((await q.waitingSessions(1000)).filter((s) => s.session_id === session)).toEqual([{ tenant_id: t, session_id: session }]);

    const taken = await q.takeHead(session, 30_000);
    expect(taken?.id).toBe(first.message.id);
    // Held by its taker: nobody else gets it, and the second waits behind it.
    expect(await q.takeHead(session, 30_000)).toBeNull();
    // A taker that died (its hold older than the stale time) loses it.
    expect((await q.takeHead(session, -1))?.id).toBe(first.message.id);
    await q.markDone(first.message.id);
    expect((await q.byRunId(first.message.run_id))?.done_time).not.toBeNull();
    const next = await q.takeHead(session, 30_000);
    expect(next?.id).toBe(second.message.id);
    await q.release(next!.id);
    expect((await q.takeHead(session, 30_000))?.id).toBe(second.message.id);
    await q.markDone(second.message.id, 'the agent was deleted');
    expect((await q.byRunId(second.message.run_id))?.error).toBe('the agent was deleted');
    expect(await q.takeHead(session, 30_000)).toBeNull();
    expect((await q.waitingSessions(1000)).some((s) => s.session_id === session)).toBe(false);
  });
}
