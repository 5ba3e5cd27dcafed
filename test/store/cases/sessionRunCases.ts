import { expect, it } from 'vitest';
import { emptySession } from '../../../src/core/engine/state';
import { newId } from '../../../src/io/store/time';
import type { SessionMessage } from '../../../src/io/store/contract';
import { freshTenant, newCanvas, newSession, type StoreContext } from './context';

const LIST_ALL = { page: 1, pageSize: 0, orderby: 'create_time', desc: false };

export function sessionCases(ctx: StoreContext): void {
  it('stores messages and state and reads them back as objects', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    const session = await newSession(ctx.store, tenantId, canvas.id);
    expect(session).toMatchObject({ tenant_id: tenantId, agent_id: canvas.id, user_id: 'user-1', active_run_id: null, state: emptySession() });
    expect(session.messages).toEqual([{ role: 'assistant', content: 'Hi! How can I help?' }]);
    expect(await ctx.store.sessions.get(tenantId, canvas.id, session.id)).toEqual(session);
  });

  it("hides another tenant's session", async () => {
    const owner = freshTenant();
    const intruder = freshTenant();
    const canvas = await newCanvas(ctx.store, owner);
    const session = await newSession(ctx.store, owner, canvas.id);
    expect(await ctx.store.sessions.get(intruder, canvas.id, session.id)).toBeNull();
    expect(await ctx.store.sessions.list(intruder, canvas.id, LIST_ALL)).toEqual({ items: [], total: 0 });
    expect(await ctx.store.sessions.delete(intruder, canvas.id, session.id)).toBe(false);
    expect(await ctx.store.sessions.get(owner, canvas.id, session.id)).not.toBeNull();
    expect(await ctx.store.sessions.delete(owner, canvas.id, session.id)).toBe(true);
    expect(await ctx.store.sessions.get(owner, canvas.id, session.id)).toBeNull();
  });

  it('lists sessions of an agent filtered by user, ordered and paged', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    const other = await newCanvas(ctx.store, tenantId, 'Other agent');
    const made = [];
    for (const [i, user] of ['ann', 'bob', 'ann'].entries()) {
      const s = await newSession(ctx.store, tenantId, canvas.id, user);
      await ctx.db.query('UPDATE sessions SET create_time = $2, update_time = $3 WHERE id = $1', [s.id, 100 + i, 900 - i]);
      made.push(s.id);
    }
    await newSession(ctx.store, tenantId, other.id, 'ann');
    const ids = (r: { items: { id: string }[]; total: number }) => ({ ids: r.items.map((s) => s.id), total: r.total });
    expect(ids(await ctx.store.sessions.list(tenantId, canvas.id, LIST_ALL))).toEqual({ ids: made, total: 3 });
    expect(ids(await ctx.store.sessions.list(tenantId, canvas.id, { ...LIST_ALL, orderby: 'bogus', desc: true }))).toEqual({ ids: made, total: 3 });
    expect(ids(await ctx.store.sessions.list(tenantId, canvas.id, { ...LIST_ALL, desc: true, pageSize: 2, page: 1 }))).toEqual({
      ids: [made[2], made[1]],
      total: 3,
    });
    expect(ids(await ctx.store.sessions.list(tenantId, canvas.id, { ...LIST_ALL, userId: 'ann' }))).toEqual({ ids: [made[0], made[2]], total: 2 });
    expect(ids(await ctx.store.sessions.list(tenantId, canvas.id, { ...LIST_ALL, id: made[1] }))).toEqual({ ids: [made[1]], total: 1 });
  });

  it('lets exactly one run claim a session at a time', async () => {
    const tenantId = freshTenant();
    const session = await newSession(ctx.store, tenantId, (await newCanvas(ctx.store, tenantId)).id);
    const runs = Array.from({ length: 5 }, () => newId());
    const claims = await Promise.all(runs.map((runId) => ctx.store.sessions.claim(session.id, runId)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = runs[claims.indexOf(true)]!;
    expect(await ctx.store.sessions.claim(session.id, winner)).toBe(true); // re-claiming is idempotent
    await ctx.store.sessions.release(
      session.id,
      runs.find((r) => r !== winner)!,
    ); // not the holder: no effect
    expect(await ctx.store.sessions.claim(session.id, newId())).toBe(false);
    await ctx.store.sessions.release(session.id, winner);
    expect(await ctx.store.sessions.claim(session.id, newId())).toBe(true);
  });

  it('completes a turn: appends messages, stores the state and releases the claim', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    const session = await newSession(ctx.store, tenantId, canvas.id);
    const runId = newId();
    expect(await ctx.store.sessions.claim(session.id, runId)).toBe(true);
    const turn: SessionMessage[] = [
      { role: 'user', content: 'Hello', id: 'm1' },
      { role: 'assistant', content: 'Hi there', id: 'm1', reference: { chunks: [] } },
    ];
    const state = { ...emptySession(), globals: { 'sys.query': 'Hello' }, ranBefore: ['begin'] };
    await ctx.store.sessions.completeTurn(session.id, runId, turn, state);
    const after = await ctx.store.sessions.get(tenantId, canvas.id, session.id);
    expect(after!.messages).toEqual([...session.messages, ...turn]);
    expect(after!.state).toEqual(state);
    expect(after!.active_run_id).toBeNull();
    expect(await ctx.store.sessions.claim(session.id, newId())).toBe(true);
  });

  it('ignores a turn completed by a run that does not hold the session (a late or repeated call)', async () => {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    const session = await newSession(ctx.store, tenantId, canvas.id);
    const holder = newId();
    await ctx.store.sessions.claim(session.id, holder);
    await ctx.store.sessions.completeTurn(session.id, newId(), [{ role: 'assistant', content: 'late' }], emptySession());
    await ctx.store.sessions.completeTurn(session.id, holder, [{ role: 'assistant', content: 'once' }], emptySession());
    await ctx.store.sessions.completeTurn(session.id, holder, [{ role: 'assistant', content: 'once' }], emptySession());
    await ctx.store.sessions.appendMessages(session.id, [{ role: 'assistant', content: 'later' }]);
    const after = await ctx.store.sessions.get(tenantId, canvas.id, session.id);
    expect(after!.active_run_id).toBeNull();
    expect(after!.messages.map((m) => m.content)).toEqual(['Hi! How can I help?', 'once', 'later']);
  });
}

export function runCases(ctx: StoreContext): void {
  const newRun = (tenantId: string, sessionId: string | null = null) =>
    ctx.store.runs.create({ id: newId(), tenantId, canvasId: 'canvas-1', sessionId, workflowId: `wf-${newId()}` });

  it('creates a running run and records how it ends', async () => {
    const tenantId = freshTenant();
    const run = await newRun(tenantId);
    expect(run).toMatchObject({ tenant_id: tenantId, status: 'running', result: null, error: null, finish_time: null });
    await ctx.store.runs.setStatus(run.id, 'paused');
    expect(await ctx.store.runs.get(tenantId, run.id)).toMatchObject({ status: 'paused', finish_time: null });
    await ctx.store.runs.setStatus(run.id, 'finished', { result: { content: 'ok', outputs: { a: [1] } } });
    const finished = await ctx.store.runs.getById(run.id);
    expect(finished).toMatchObject({ status: 'finished', result: { content: 'ok', outputs: { a: [1] } }, error: null });
    expect(finished!.finish_time).toBeTypeOf('number');
    await ctx.store.runs.setStatus(run.id, 'failed', { error: 'boom' }); // result kept when not given
    expect(await ctx.store.runs.getById(run.id)).toMatchObject({ status: 'failed', error: 'boom', result: { content: 'ok' } });
  });

  it("hides another tenant's run but lets activities read it by id", async () => {
    const owner = freshTenant();
    const run = await newRun(owner, 'session-x');
    expect(await ctx.store.runs.get(freshTenant(), run.id)).toBeNull();
    expect(await ctx.store.runs.activeForSession(freshTenant(), 'session-x')).toBeNull();
    expect((await ctx.store.runs.getById(run.id))?.tenant_id).toBe(owner);
  });

  it('finds the most recent running or paused run of a session', async () => {
    const tenantId = freshTenant();
    const sessionId = newId();
    expect(await ctx.store.runs.activeForSession(tenantId, sessionId)).toBeNull();
    const older = await newRun(tenantId, sessionId);
    const newer = await newRun(tenantId, sessionId);
    await ctx.db.query('UPDATE runs SET create_time = create_time - 1000 WHERE id = $1', [older.id]);
    expect((await ctx.store.runs.activeForSession(tenantId, sessionId))?.id).toBe(newer.id);
    await ctx.store.runs.setStatus(newer.id, 'canceled');
    await ctx.store.runs.setStatus(older.id, 'paused');
    expect((await ctx.store.runs.activeForSession(tenantId, sessionId))?.id).toBe(older.id);
    await ctx.store.runs.setStatus(older.id, 'finished');
    expect(await ctx.store.runs.activeForSession(tenantId, sessionId)).toBeNull();
  });
}
