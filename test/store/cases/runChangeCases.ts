/**
 * The run changes feed (migration 18) the runs stream reads: every run start and status change is
 * one numbered change of its tenant, numbered in commit order, and wakes that tenant's subscribers.
 */
import { expect, it } from 'vitest';
import { newId } from '../../../src/io/store/time';
import type { Store } from '../../../src/io/store/contract';
import { skipBecause } from '../../helpers/skip';
import { freshTenant, type StoreContext } from './context';

const newRun = (store: Store, tenantId: string, id = newId()) =>
  store.runs.create({ id, tenantId, canvasId: 'canvas-1', sessionId: null, workflowId: `wf-${id}`, canvasVersionId: null, parentRunId: null });

export function runChangeCases(ctx: StoreContext): void {
  it('numbers a run’s start and each status change for its tenant only; a write that keeps the status adds nothing', async () => {
    const tenant = freshTenant();
    const run = await newRun(ctx.store, tenant);
    await newRun(ctx.store, tenant, run.id); // a repeated start
    await ctx.store.runs.setStatus(run.id, 'paused');
    await ctx.store.runs.setStatus(run.id, 'paused');
    await ctx.store.runs.finish(run.id, { status: 'finished', result: null, error: null }, []);
    const changes = await ctx.store.runChanges.after(tenant, 0, 10);
    expect(changes.map((c) => [c.kind, c.status])).toEqual([
      ['started', 'running'],
      ['status', 'paused'],
      ['ended', 'finished'],
    ]);
    expect(changes.every((c) => c.run_id === run.id && c.canvas_id === 'canvas-1')).toBe(true);
    expect(changes[1]!.id).toBeGreaterThan(changes[0]!.id);
    expect(await ctx.store.runChanges.latest(tenant)).toBe(changes[2]!.id);
    expect(await ctx.store.runChanges.after(tenant, changes[0]!.id, 10)).toEqual(changes.slice(1));
    expect(await ctx.store.runChanges.after(freshTenant(), 0, 10)).toEqual([]);
  });

  it('numbers changes in commit order: a run committed while an earlier transaction is still open gets the smaller number', async (test) => {
    if (ctx.db.kind !== 'postgres') skipBecause(test, 'PGlite runs one transaction at a time, so commits cannot interleave');
    const tenant = freshTenant();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedEarly = new Promise<void>((r) => (inserted = r));
    const early = newId();
    const slow = ctx.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO runs (id, tenant_id, canvas_id, session_id, workflow_id, status, create_time, update_time)
         VALUES ($1, $2, 'canvas-1', NULL, $3, 'running', $4, $4)`,
        [early, tenant, `wf-${early}`, Date.now()],
      );
      inserted();
      await gate;
    });
    await insertedEarly;
    const late = await newRun(ctx.store, tenant);
    release();
    await slow;
    const changes = await ctx.store.runChanges.after(tenant, 0, 10);
    // A reader that saw the late run's number never later finds the early run below it.
    expect(changes.map((c) => c.run_id)).toEqual([late.id, early]);
  });

  it('wakes the tenant’s subscribers when one of its runs changes, and not another tenant’s', async () => {
    const tenant = freshTenant();
    const other = freshTenant();
    let woken = 0;
    let otherWoken = 0;
    const stop = await ctx.store.runChanges.subscribe(tenant, () => (woken += 1));
    const stopOther = await ctx.store.runChanges.subscribe(other, () => (otherWoken += 1));
    try {
      await newRun(ctx.store, tenant);
      await expect.poll(() => woken, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(otherWoken).toBe(0);
    } finally {
      stop();
      stopOther();
    }
  });
}
