/** How a run ends (runs.finish): its row, its session and its closing events, in one statement. */
import { expect, it } from 'vitest';
import { emptySession } from '../../../src/core/engine/state';
import type { RunEvent } from '../../../src/core/engine/runEvents';
import { newId } from '../../../src/io/store/time';
import type { StoredEvent } from '../../../src/io/store/contract';
import { freshTenant, newCanvas, newSession, positions, runEvent, type StoreContext } from './context';

export function runEndCases(ctx: StoreContext): void {
  async function claimedRun() {
    const tenantId = freshTenant();
    const canvas = await newCanvas(ctx.store, tenantId);
    const session = await newSession(ctx.store, tenantId, canvas.id);
    const run = await ctx.store.runs.create({ id: newId(), tenantId, canvasId: canvas.id, sessionId: session.id, workflowId: `wf-${newId()}` });
    expect(await ctx.store.sessions.claim(session.id, run.id)).toBe(true);
    return { tenantId, canvas, session, run };
  }
  const closing = (): RunEvent[] => [runEvent(3, 0, 'node_finished'), runEvent(4, 0, 'workflow_finished', { outputs: { content: 'Hi' } })];

  it('ends the row, completes the turn and stores the closing events together, waking the readers', async () => {
    const { tenantId, canvas, session, run } = await claimedRun();
    const woken: StoredEvent[][] = [];
    const unsubscribe = await ctx.store.events.subscribe(run.id, (appended) => woken.push(appended ?? []));
    const state = { ...emptySession(), globals: { 'sys.query': 'Hello' } };
    const reply = { role: 'assistant' as const, content: 'Hi', id: 'm1' };
    await ctx.store.runs.finish(
      run.id,
      { status: 'finished', result: { content: 'Hi' }, error: null, session: { id: session.id, completed: { messages: [reply], state } } },
      closing(),
    );
    for (let i = 0; i < 50 && woken.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await unsubscribe();
    expect(woken.length).toBeGreaterThan(0);
    const ended = await ctx.store.runs.getById(run.id);
    expect(ended).toMatchObject({ status: 'finished', result: { content: 'Hi' }, error: null });
    expect(ended!.finish_time).toBeTypeOf('number');
    const after = await ctx.store.sessions.get(tenantId, canvas.id, session.id);
    expect(after).toMatchObject({ active_run_id: null, messages: [...session.messages, reply], state });
    expect(positions(await ctx.store.events.list(run.id, null, 10))).toEqual(['3.0', '4.0']);
    expect(await ctx.store.events.hasTerminal(run.id)).toBe(true);
  });

  it("releases the session of a run that ends without a turn, and a repeat changes nothing, not even the session's next claim", async () => {
    const { tenantId, canvas, session, run } = await claimedRun();
    const end = { status: 'failed' as const, result: null, error: 'boom', session: { id: session.id } };
    await ctx.store.runs.finish(run.id, end, closing());
    expect(await ctx.store.runs.getById(run.id)).toMatchObject({ status: 'failed', error: 'boom', result: null });
    const next = newId();
    expect(await ctx.store.sessions.claim(session.id, next)).toBe(true);
    await ctx.store.runs.finish(run.id, end, closing());
    expect(await ctx.store.sessions.get(tenantId, canvas.id, session.id)).toMatchObject({ active_run_id: next, messages: session.messages });
    expect(positions(await ctx.store.events.list(run.id, null, 10))).toEqual(['3.0', '4.0']);
  });

  it('writes nothing at all when any part fails: the run stays running and keeps its session', async () => {
    const { tenantId, canvas, session, run } = await claimedRun();
    const broken = { ...runEvent(4, 0, 'workflow_finished'), seq: null } as unknown as RunEvent;
    const end = { status: 'finished' as const, result: { content: 'Hi' }, error: null, session: { id: session.id } };
    await expect(ctx.store.runs.finish(run.id, end, [runEvent(3, 0, 'node_finished'), broken])).rejects.toThrow();
    expect(await ctx.store.runs.getById(run.id)).toMatchObject({ status: 'running', finish_time: null });
    expect((await ctx.store.sessions.get(tenantId, canvas.id, session.id))?.active_run_id).toBe(run.id);
    expect(await ctx.store.events.list(run.id, null, 10)).toEqual([]);
  });

  it('ends a run whose closing events fill more than one statement with the last of them', async () => {
    const { run } = await claimedRun();
    const many = [...Array.from({ length: 520 }, (_, i) => runEvent(3, i + 1, 'message', { content: 'x' })), runEvent(4, 0, 'workflow_finished')];
    await ctx.store.runs.finish(run.id, { status: 'finished', result: {}, error: null }, many);
    expect(await ctx.store.runs.getById(run.id)).toMatchObject({ status: 'finished' });
    expect((await ctx.store.events.list(run.id, null, 1000)).length).toBe(521);
  });
}
