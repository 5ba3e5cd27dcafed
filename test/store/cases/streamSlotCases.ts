/**
 * Stream slots fenced by attempt: once a retried streaming call claims its slot, the store
 * refuses every write of an older attempt, atomically, so the slot's visible text is the
 * current attempt's alone. Run on both backends by store.test.ts.
 */
import { expect, it } from 'vitest';
import { isAppError } from '../../../src/errors';
import { isEvent, type RunEvent } from '../../../src/core/engine/runEvents';
import { newId } from '../../../src/io/store/time';
import { positions, runEvent, type StoreContext } from './context';
import { rejection } from '../../helpers/rejection';

const token = (seq: number, sub: number, content: string): RunEvent => runEvent(seq, sub, 'message', { content });

/** The slot's text as a reader replaying the log sees it. */
async function visibleText(ctx: StoreContext, runId: string, seq: number): Promise<string> {
  const events = await ctx.store.events.list(runId, null, 10_000);
  return events
    .filter((e) => e.seq === seq)
    .map((e) => (isEvent(e, 'message') ? e.data.content : ''))
    .join('');
}

export function streamSlotCases(ctx: StoreContext): void {
  it('refuses the writes of an older attempt once a newer one claimed the slot, storing none of them', async () => {
    const runId = newId();
    await ctx.store.events.appendStream(runId, { seq: 2, attempt: 1 }, [token(2, 1, 'a'), token(2, 2, 'b')]);
    expect(await ctx.store.events.claimSlot(runId, 2, 2)).toBe(true);
    const refused = await rejection(ctx.store.events.appendStream(runId, { seq: 2, attempt: 1 }, [token(2, 3, 'late')]));
    expect(isAppError(refused, 'STREAM_SUPERSEDED')).toBe(true);
    expect(await ctx.store.events.lastSub(runId, 2)).toBe(2);
    // The claim does not hide anything by itself: the retry supersedes, then writes above.
    await ctx.store.events.supersede(runId, 2);
    await ctx.store.events.appendStream(runId, { seq: 2, attempt: 2 }, [token(2, 3, 'c')]);
    expect(positions(await ctx.store.events.list(runId, null, 100))).toEqual(['2.3']);
  });

  it('lets only the newest attempt claim a slot, and fences each slot on its own', async () => {
    const runId = newId();
    expect(await ctx.store.events.claimSlot(runId, 2, 3)).toBe(true);
    expect(await ctx.store.events.claimSlot(runId, 2, 2)).toBe(false);
    expect(await ctx.store.events.claimSlot(runId, 2, 3)).toBe(true);
    const refused = await rejection(ctx.store.events.appendStream(runId, { seq: 2, attempt: 2 }, [token(2, 1, 'x')]));
    expect(isAppError(refused, 'STREAM_SUPERSEDED')).toBe(true);
    // Another slot of the run, and the same slot of another run, are not fenced by it.
    await ctx.store.events.appendStream(runId, { seq: 5, attempt: 1 }, [token(5, 1, 'y')]);
    await ctx.store.events.appendStream(newId(), { seq: 2, attempt: 1 }, [token(2, 1, 'z')]);
    expect(positions(await ctx.store.events.list(runId, null, 100))).toEqual(['5.1']);
  });

  it('keeps the slot to the current attempt while an older one keeps writing concurrently', async () => {
    const runId = newId();
    // Attempt 1 writes tokens as fast as it can, never told it was superseded; attempt 2 claims
    // mid-way, supersedes what is there and writes its own answer above it.
    let stop = false;
    let refusedAt = -1;
    const first = (async () => {
      for (let sub = 1; !stop && sub < 2_000; sub += 1) {
        const err = await rejection(ctx.store.events.appendStream(runId, { seq: 3, attempt: 1 }, [token(3, sub, 'OLD ')]));
        if (err) {
          expect(isAppError(err, 'STREAM_SUPERSEDED')).toBe(true);
          refusedAt = sub;
          return;
        }
      }
    })();
    while ((await ctx.store.events.lastSub(runId, 3)) < 5) await new Promise((r) => setTimeout(r, 1));
    expect(await ctx.store.events.claimSlot(runId, 3, 2)).toBe(true);
    const last = await ctx.store.events.lastSub(runId, 3);
    await ctx.store.events.supersede(runId, 3);
    const answer = ['the ', 'retry ', 'answer'];
    await ctx.store.events.appendStream(
      runId,
      { seq: 3, attempt: 2 },
      answer.map((t, i) => token(3, last + 1 + i, t)),
    );
    await new Promise((r) => setTimeout(r, 50));
    stop = true;
    await first;
    expect(refusedAt).toBeGreaterThan(0);
    expect(await visibleText(ctx, runId, 3)).toBe('the retry answer');
    expect(await ctx.store.events.lastSub(runId, 3)).toBe(last + answer.length);
  });

  it('lets only the attempt holding the slot hide its tokens: a stalled retry that claimed before a newer one hides nothing of the newer one', async () => {
    const runId = newId();
    await ctx.store.events.appendStream(runId, { seq: 4, attempt: 1 }, [token(4, 1, 'old ')]);
    // Attempt 2 claimed (then stalled before hiding anything); attempt 3 claimed after it and streams.
    expect(await ctx.store.events.claimSlot(runId, 4, 2)).toBe(true);
    expect(await ctx.store.events.claimSlot(runId, 4, 3)).toBe(true);
    expect(await ctx.store.events.supersede(runId, 4, 3)).toBe(1);
    await ctx.store.events.appendStream(runId, { seq: 4, attempt: 3 }, [token(4, 2, 'the '), token(4, 3, 'answer')]);
    // Attempt 2 wakes up and goes on with its retry: it no longer holds the slot, so it hides nothing.
    expect(await ctx.store.events.supersede(runId, 4, 2)).toBe(0);
    expect(await visibleText(ctx, runId, 4)).toBe('the answer');
  });
}
