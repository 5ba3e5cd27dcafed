/**
 * Tenant admission (migration 21) on both backends: the cap is kept under concurrent starts,
 * waiting runs keep their start and are admitted in start order, paused runs hold no place, a
 * waiting run can be canceled, and an admitted run its starter never started is found again.
 */
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
  const enter = (tenantId: string, runId: string, cap: number, now = 1) => ctx.store.admission.enter({ tenantId, runId, cap, now, start: { runId, n: 1 } });

  it('admits at most the cap of concurrent starts; the rest wait', async () => {
    const tenantId = freshTenant();
    const runs = await newRuns(tenantId, 8);
    const decided = await Promise.all(runs.map((r) => enter(tenantId, r.id, 3, 5)));
    expect(decided.filter((d) => d.admitted)).toHaveLength(3);
    // A retried start keeps its decision.
    const i = decided.findIndex((d) => !d.admitted);
    expect(await enter(tenantId, runs[i]!.id, 3, 6)).toEqual(decided[i]);
    expect(await ctx.store.admission.waitingSince(runs[i]!.id)).toBe(5);
    expect(await ctx.store.admission.waitingTenants(1000)).toContain(tenantId);
  });

  it('admits the oldest waiting runs with their starts when places free up; paused runs hold none', async () => {
    const tenantId = freshTenant();
    const other = freshTenant();
    const runs = await newRuns(tenantId, 5);
    const entered = [];
    for (const r of runs) entered.push(await enter(tenantId, r.id, 2));
    // Each waiting run knows its place: those started before it wait before it.
    expect(entered.map((e) => (e.admitted ? 'in' : e.ahead))).toEqual(['in', 'in', 0, 1, 2]);
    // Another tenant's runs take none of this tenant's places.
    const [theirs] = await newRuns(other, 1);
    expect(await enter(other, theirs!.id, 2)).toEqual({ admitted: true, ahead: 0 });
    expect(await ctx.store.admission.admitWaiting({ tenantId, cap: 2, now: 2 })).toEqual({ admitted: [], waiting: 3 });
    await ctx.store.runs.setStatus(runs[0]!.id, 'finished', { result: null });
    await ctx.store.runs.setStatus(runs[1]!.id, 'paused');
    expect(await ctx.store.admission.admitWaiting({ tenantId, cap: 2, now: 3 })).toEqual({
      admitted: [
        { runId: runs[2]!.id, tenantId, start: { runId: runs[2]!.id, n: 1 } },
        { runId: runs[3]!.id, tenantId, start: { runId: runs[3]!.id, n: 1 } },
      ],
      waiting: 1,
    });
    expect(await ctx.store.admission.waitingSince(runs[2]!.id)).toBeNull();
    expect(await ctx.store.admission.waitingSince(runs[4]!.id)).toBe(1);
    // Admitted but not started (its starter died): found again once old enough, not after it started.
    expect((await ctx.store.admission.unstarted({ before: 4, limit: 1000 })).filter((u) => u.tenantId === tenantId).map((u) => u.runId)).toEqual([
      runs[2]!.id,
      runs[3]!.id,
    ]);
    await ctx.store.admission.started(runs[2]!.id);
    expect((await ctx.store.admission.unstarted({ before: 4, limit: 1000 })).filter((u) => u.tenantId === tenantId).map((u) => u.runId)).toEqual([runs[3]!.id]);
    expect((await ctx.store.admission.unstarted({ before: 3, limit: 1000 })).filter((u) => u.tenantId === tenantId)).toEqual([]);
  });

  it('cancels a waiting run only, and keeps waiting runs out of the reconciler', async () => {
    const tenantId = freshTenant();
    const runs = await newRuns(tenantId, 2);
    await enter(tenantId, runs[0]!.id, 1);
    await enter(tenantId, runs[1]!.id, 1);
    const unsettled = await ctx.store.runs.unsettled({ before: Date.now() + 60_000, after: null, limit: 100_000 });
    expect(unsettled.map((r) => r.id)).toContain(runs[0]!.id);
    expect(unsettled.map((r) => r.id)).not.toContain(runs[1]!.id);
    expect(await ctx.store.admission.cancelWaiting(runs[0]!.id, 'no', 7)).toBe(false);
    expect(await ctx.store.admission.cancelWaiting(runs[1]!.id, 'changed my mind', 7)).toBe(true);
    expect(await ctx.store.runs.getById(runs[1]!.id)).toMatchObject({ status: 'canceled', error: 'changed my mind', finish_time: 7 });
    expect(await ctx.store.admission.waitingSince(runs[1]!.id)).toBeNull();
  });
}
