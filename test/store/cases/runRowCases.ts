/**
 * What used to be SQL outside the store and is now the store's own: the runs page and the
 * active-runs count (runIndex), a run's files (files), an ingestion's payload clean-up (blobs),
 * the health probe (ping), and the handle itself staying inside.
 */
import { expect, it } from 'vitest';
import { createStore } from '../../../src/io/store/store';
import { storeDb } from '../../../src/io/store/storeDb';
import { newId } from '../../../src/io/store/time';
import type { RunRecordStatus } from '../../../src/io/store/contract';
import { freshTenant, newCanvas, newSession, type StoreContext } from './context';

export function runIndexCases(ctx: StoreContext): void {
  const newRun = (tenantId: string, canvasId: string, sessionId: string | null = null, parentRunId: string | null = null) =>
    ctx.store.runs.create({ id: newId(), tenantId, canvasId, sessionId, workflowId: `wf-${newId()}`, parentRunId });

  it("lists a tenant's runs newest first with the canvas title, the usage and the session's user", async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId, 'Support bot');
    const session = await newSession(ctx.store, tenantId, canvas.id, 'ann');
    const first = await newRun(tenantId, canvas.id, session.id);
    const child = await newRun(tenantId, canvas.id, null, first.id);
    await storeDb(ctx.store).query('UPDATE runs SET create_time = create_time - 1000 WHERE id = $1', [first.id]);
    await ctx.store.runs.setStatus(first.id, 'finished', { result: { content: 'ok', usage: { total_tokens: 42 } } });
    await newRun(freshTenant(), canvas.id); // another tenant's run is never listed

    const { items, total } = await ctx.store.runIndex.list(tenantId, { page: 1, pageSize: 10 });
    expect(total).toBe(2);
    expect(items.map((r) => r.id)).toEqual([child.id, first.id]);
    expect(items[1]).toMatchObject({
      canvas_title: 'Support bot',
      session_id: session.id,
      session_user: 'ann',
      status: 'finished',
      usage: { total_tokens: 42 },
    });
    expect(items[1]!.finish_time).toBeTypeOf('number');
    expect(items[1]!.create_time).toBeTypeOf('number');
    expect(items[0]).toMatchObject({ parent_run_id: first.id, session_user: null, usage: null, finish_time: null });
  });

  it('filters the list by canvas, statuses and session, one page at a time', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    const other = await newCanvas(ctx.store, tenantId, 'Other');
    const session = await newSession(ctx.store, tenantId, canvas.id);
    const runs = [await newRun(tenantId, canvas.id, session.id), await newRun(tenantId, canvas.id), await newRun(tenantId, other.id)];
    await ctx.store.runs.setStatus(runs[1]!.id, 'failed', { error: 'boom' });
    const ids = async (filter: Parameters<typeof ctx.store.runIndex.list>[1]) => {
      const page = await ctx.store.runIndex.list(tenantId, filter);
      return { ids: page.items.map((r) => r.id).sort(), total: page.total };
    };
    expect(await ids({ page: 1, pageSize: 10, canvasId: other.id })).toEqual({ ids: [runs[2]!.id], total: 1 });
    expect(await ids({ page: 1, pageSize: 10, statuses: ['failed', 'canceled'] })).toEqual({ ids: [runs[1]!.id], total: 1 });
    expect(await ids({ page: 1, pageSize: 10, sessionId: session.id })).toEqual({ ids: [runs[0]!.id], total: 1 });
    expect((await ctx.store.runIndex.list(tenantId, { page: 2, pageSize: 2 })).items).toHaveLength(1);
  });

  it('counts the runs running or paused in the whole deployment, per status', async () => {
    const before = await ctx.store.runIndex.countActive();
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    const [running, paused, ended] = [await newRun(tenantId, canvas.id), await newRun(tenantId, canvas.id), await newRun(tenantId, canvas.id)];
    await ctx.store.runs.setStatus(paused.id, 'paused');
    await ctx.store.runs.setStatus(ended.id, 'finished');
    const after = await ctx.store.runIndex.countActive();
    const delta = (status: RunRecordStatus) => (after.get(status) ?? 0) - (before.get(status) ?? 0);
    expect({ running: delta('running'), paused: delta('paused') }).toEqual({ running: 1, paused: 1 });
    expect(after.has('finished')).toBe(false);
    expect(running.status).toBe('running');
  });
}

export function runFileCases(ctx: StoreContext): void {
  it('stores a run file and reads it back in its tenant only', async () => {
    const tenantId = freshTenant();
    const content = new TextEncoder().encode('a,b\n1,2\n');
    const meta = await ctx.store.files.put({ tenantId, origin: 'upload', name: 'data.csv', mimeType: 'text/csv', content, text: 'a\u0000b' });
    expect(meta).toMatchObject({ tenant_id: tenantId, origin: 'upload', run_id: null, name: 'data.csv', size: content.byteLength, text: 'ab' });
    expect(await ctx.store.files.meta(tenantId, meta.id)).toEqual(meta);
    expect(await ctx.store.files.content(tenantId, meta.id)).toEqual(content);
    expect([...(await ctx.store.files.metas(tenantId, [meta.id, 'missing'])).keys()]).toEqual([meta.id]);
    expect(await ctx.store.files.meta(freshTenant(), meta.id)).toBeNull();
    expect(await ctx.store.files.content(freshTenant(), meta.id)).toBeNull();
    expect((await ctx.store.files.metas(freshTenant(), [meta.id])).size).toBe(0);
    // The worker reads by id the files the API already checked.
    expect((await ctx.store.files.metasById([meta.id])).get(meta.id)).toEqual(meta);
    expect(await ctx.store.files.contentById(meta.id)).toEqual(content);
  });
}

export function storeSurfaceCases(ctx: StoreContext): void {
  it('deletes the values stored under one run and keeps the others', async () => {
    const [owner, other] = [`run-${newId()}`, `run-${newId()}`];
    const gone = await ctx.store.blobs.put(owner, 'payload');
    const kept = await ctx.store.blobs.put(other, 'keep me');
    await ctx.store.blobs.deleteForRun(owner);
    expect(await ctx.store.blobs.get(gone)).toBeNull();
    expect(await ctx.store.blobs.get(kept)).toBe('keep me');
  });

  it('answers the health probe while its database is open and refuses once it is closed', async () => {
    await expect(ctx.store.ping()).resolves.toBeUndefined();
    const closed = createStore(await ctx.freshDb());
    await closed.close();
    await expect(closed.ping()).rejects.toThrow();
  });

  it('hands out no database handle: only tests reach it, through storeDb', () => {
    expect('db' in ctx.store).toBe(false);
    expect(storeDb(ctx.store)).toBe(ctx.db);
  });
}
