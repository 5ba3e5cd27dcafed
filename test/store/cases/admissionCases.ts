/** Tenant admission (migration 21) on both backends: the cap is kept under concurrent starts, waiting runs go in start order, paused runs hold no place. */
import { expect, it } from 'vitest';
import { storeDb } from '../../../src/io/store/storeDb';
import { newId } from '../../../src/io/store/time';
import { freshTenant, newCanvas, type StoreContext } from './context';

export function admissionCases(ctx: StoreContext): void {
  const newRuns = async (tenantId: string, n: number) => {
    const canvas = await newCanvas(ctx.store, tenantId);
    const runs = [];
    for (let i = 0; i < n; i++) {
      const run = await ctx.store.runs.create({
        id: newId(),
        tenantId,
        canvasId: canvas.id,
        sessionId: null,
        workflowId: `wf-${i}-${newId()}`,
        parentRunId: null,
      });
      // Distinct start times: waiting runs go in the order they were started.
      await storeDb(ctx.store).query('UPDATE runs SET create_time = $2 WHERE id = $1', [run.id, 1_000 + i]);
      runs.push(run);
    }
    return runs;
  };

  it('admits at most the cap of concurrent starts; the rest wait', async () => {
    const tenantId = freshTenant();
    const runs = await newRuns(tenantId, 8);
    const decided = await Promise.all(runs.map((r) => ctx.store.admission.enter({ tenantId, runId: r.id, cap: 3, now: 5 })));
    expect(decided.filter((d) => d.admitted)).toHaveLength(3);
    // A retried start keeps its decision.
    const i = decided.findIndex((d) => !d.admitted);
    expect(await ctx.store.admission.enter({ tenantId, runId: runs[i]!.id, cap: 3, now: 6 })).toEqual(decided[i]);
    expect(await ctx.store.admission.waitingSince(runs[i]!.id)).toBe(5);
  });

  it('admits the oldest waiting runs when runs end, and a waiting run only in its turn', async () => {
    const tenantId = freshTenant();
    const other = freshTenant();
    const runs = await newRuns(tenantId, 5);
    const entered = [];
    for (const r of runs) entered.push(await ctx.store.admission.enter({ tenantId, runId: r.id, cap: 2, now: 1 }));
    // Each waiting run knows its place: those started before it wait before it.
    expect(entered.map((e) => (e.admitted ? 'in' : e.ahead))).toEqual(['in', 'in', 0, 1, 2]);
    // Another tenant's runs take none of this tenant's places.
    const [theirs] = await newRuns(other, 1);
    expect(await ctx.store.admission.enter({ tenantId: other, runId: theirs!.id, cap: 2, now: 1 })).toEqual({ admitted: true, ahead: 0 });
    // No room: nobody is admitted, and the youngest waiting run cannot jump the queue.
    expect(await ctx.store.admission.admitWaiting({ tenantId, cap: 2, now: 2 })).toEqual([]);
    expect(await ctx.store.admission.claim({ tenantId, runId: runs[4]!.id, cap: 2, now: 2 })).toEqual({ admitted: false, ahead: 2 });
    await ctx.store.runs.setStatus(runs[0]!.id, 'finished', { result: null });
    // Room for one: still not the youngest's turn, the oldest waiting one goes.
    expect(await ctx.store.admission.claim({ tenantId, runId: runs[4]!.id, cap: 2, now: 3 })).toEqual({ admitted: false, ahead: 2 });
    expect(await ctx.store.admission.admitWaiting({ tenantId, cap: 2, now: 3 })).toEqual([runs[2]!.workflow_id]);
    expect(await ctx.store.admission.waitingSince(runs[2]!.id)).toBeNull();
    // A paused run holds no place: the next one claims it itself.
    await ctx.store.runs.setStatus(runs[1]!.id, 'paused');
    expect(await ctx.store.admission.claim({ tenantId, runId: runs[3]!.id, cap: 2, now: 4 })).toEqual({ admitted: true, ahead: 0 });
    expect(await ctx.store.admission.claim({ tenantId, runId: runs[3]!.id, cap: 2, now: 5 })).toEqual({ admitted: true, ahead: 0 });
    expect(await ctx.store.admission.claim({ tenantId, runId: runs[4]!.id, cap: 2, now: 5 })).toEqual({ admitted: false, ahead: 0 });
    expect(await ctx.store.admission.waitingSince(runs[4]!.id)).toBe(1);
  });

  it('lets a run that was never gated, or is gone, go on', async () => {
    const tenantId = freshTenant();
    const [run] = await newRuns(tenantId, 1);
    expect(await ctx.store.admission.claim({ tenantId, runId: run!.id, cap: 1, now: 1 })).toEqual({ admitted: true, ahead: 0 });
    expect(await ctx.store.admission.claim({ tenantId, runId: 'no-such-run', cap: 1, now: 1 })).toEqual({ admitted: true, ahead: 0 });
    expect(await ctx.store.admission.waitingSince(run!.id)).toBeNull();
  });
}
