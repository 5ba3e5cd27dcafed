import { expect, it } from 'vitest';
import { newId } from '../../../src/io/store/time';
import { firstCall, positions, runEvent, type StoreContext } from './context';

export function eventCases(ctx: StoreContext): void {
  it('stores an event once even when it is appended again', async () => {
    const runId = newId();
    const batch = [runEvent(1, 0, 'workflow_started'), runEvent(2, 0, 'node_started'), runEvent(3, 0, 'message', { content: 'a' })];
    await ctx.store.events.append(runId, batch);
    await ctx.store.events.append(runId, batch);
    await ctx.store.events.append(runId, [runEvent(3, 0, 'message', { content: 'changed' })]);
    const stored = await ctx.store.events.list(runId, null, 100);
    expect(positions(stored)).toEqual(['1.0', '2.0', '3.0']);
    expect(stored[2]).toEqual({ ...batch[2], terminal: false });
  });

  it('lists the events after a cursor in (seq, sub) order, tokens included', async () => {
    const runId = newId();
    // Tokens of a reserved slot may land before the engine events around them.
    await ctx.store.events.append(runId, [runEvent(2, 1, 'message', { content: 'He' }), runEvent(2, 2, 'message', { content: 'llo' })]);
    await ctx.store.events.append(runId, [runEvent(1, 0, 'workflow_started'), runEvent(3, 0, 'message_end'), runEvent(10, 0, 'node_finished')]);
    await ctx.store.events.append(newId(), [runEvent(2, 3)]); // another run's event
    expect(positions(await ctx.store.events.list(runId, null, 100))).toEqual(['1.0', '2.1', '2.2', '3.0', '10.0']);
    expect(positions(await ctx.store.events.list(runId, { seq: 2, sub: 1 }, 100))).toEqual(['2.2', '3.0', '10.0']);
    expect(positions(await ctx.store.events.list(runId, { seq: 1, sub: 0 }, 2))).toEqual(['2.1', '2.2']);
    expect(await ctx.store.events.list(runId, { seq: 10, sub: 0 }, 100)).toEqual([]);
  });

  it('marks workflow_finished and run_failed as terminal', async () => {
    const runId = newId();
    await ctx.store.events.append(runId, [
      runEvent(1, 0, 'message'),
      runEvent(2, 0, 'run_canceled'),
      runEvent(3, 0, 'run_failed'),
      runEvent(4, 0, 'workflow_finished'),
    ]);
    const stored = await ctx.store.events.list(runId, null, 100);
    expect(stored.map((e) => [e.event, e.terminal])).toEqual([
      ['message', false],
      ['run_canceled', false],
      ['run_failed', true],
      ['workflow_finished', true],
    ]);
  });

  it('hides the tokens of an earlier attempt once superseded', async () => {
    const runId = newId();
    await ctx.store.events.append(runId, [runEvent(1, 0, 'node_started'), runEvent(2, 1), runEvent(2, 2), runEvent(3, 1)]);
    expect(await ctx.store.events.lastSub(runId, 2)).toBe(2);
    expect(await ctx.store.events.lastSub(runId, 7)).toBe(0);
    expect(await ctx.store.events.supersede(runId, 2)).toBe(2);
    expect(await ctx.store.events.supersede(runId, 2)).toBe(0);
    // The retry writes above the hidden tokens.
    expect(await ctx.store.events.lastSub(runId, 2)).toBe(2);
    await ctx.store.events.append(runId, [runEvent(2, 3, 'message', { content: 'retry' })]);
    expect(positions(await ctx.store.events.list(runId, null, 100))).toEqual(['1.0', '2.3', '3.1']);
  });

  it('lists what a reader got of a stream slot up to its cursor, superseded tokens included', async () => {
    const runId = newId();
    await ctx.store.events.append(runId, [
      runEvent(1, 0, 'message', { content: 'prefix' }),
      runEvent(2, 1, 'message', { content: 'a' }),
      runEvent(2, 2, 'message', { content: 'b' }),
    ]);
    await ctx.store.events.supersede(runId, 2);
    await ctx.store.events.append(runId, [
      runEvent(2, 3, 'message_retry', { discard_chars: 2 }),
      runEvent(2, 4, 'message', { content: 'c' }),
      runEvent(2, 5, 'node_finished'),
      runEvent(3, 1, 'message'),
    ]);
    expect(positions(await ctx.store.events.slotUpTo(runId, { seq: 2, sub: 2 }))).toEqual(['2.1', '2.2']);
    expect(positions(await ctx.store.events.slotUpTo(runId, { seq: 2, sub: 99 }))).toEqual(['2.1', '2.2', '2.3', '2.4']);
    expect(await ctx.store.events.slotUpTo(runId, { seq: 1, sub: 0 })).toEqual([]);
  });

  it('tells whether a run has stored its terminal event', async () => {
    const runId = newId();
    await ctx.store.events.append(runId, [runEvent(1, 0, 'workflow_started'), runEvent(2, 0, 'run_canceled')]);
    expect(await ctx.store.events.hasTerminal(runId)).toBe(false);
    await ctx.store.events.append(runId, [runEvent(3, 0, 'workflow_finished')]);
    expect(await ctx.store.events.hasTerminal(runId)).toBe(true);
  });

  it('drops NUL characters, which jsonb cannot store, instead of failing', async () => {
    const runId = newId();
    await ctx.store.events.append(runId, [runEvent(1, 0, 'message', { content: 'a\u0000b', raw: '\\u0000 stays' })]);
    const [stored] = await ctx.store.events.list(runId, null, 10);
    expect(stored!.data).toEqual({ content: 'ab', raw: '\\u0000 stays' });
  });

  it('appends a long stream in one call', async () => {
    const runId = newId();
    const tokens = Array.from({ length: 1_200 }, (_, i) => runEvent(5, i + 1, 'message', { content: `t${i}` }));
    await ctx.store.events.append(runId, tokens);
    const stored = await ctx.store.events.list(runId, null, 5_000);
    expect(stored).toHaveLength(1_200);
    expect(stored.at(-1)).toMatchObject({ seq: 5, sub: 1_200, data: { content: 't1199' } });
  });

  it('wakes the subscribers of a run when its events are appended', async () => {
    const runId = newId();
    const otherRunCalls: string[] = [];
    const unsubscribeOther = await ctx.store.events.subscribe(newId(), () => otherRunCalls.push('woken'));
    const first = firstCall();
    const unsubscribe = await ctx.store.events.subscribe(runId, first.callback);
    await ctx.store.events.append(runId, [runEvent(1, 0, 'workflow_started')]);
    await first.called;
    expect(otherRunCalls).toEqual([]);
    await unsubscribe();
    await unsubscribeOther();
  });

  it('hands an embedded store’s subscribers the events just stored, in order, and none stored already', async () => {
    const runId = newId();
    const handed: string[][] = [];
    const unsubscribe = await ctx.store.events.subscribe(runId, (appended) => handed.push(appended ? positions(appended) : ['read']));
    await ctx.store.events.append(runId, [runEvent(2, 0, 'node_started'), runEvent(1, 0, 'workflow_started')]);
    await ctx.store.events.append(runId, [runEvent(2, 0, 'node_started'), runEvent(3, 1, 'message', { content: 'x' })]);
    await ctx.store.events.list(runId, null, 10); // notifications of PostgreSQL arrive by now or soon after
    await unsubscribe();
    if (ctx.db.kind === 'pglite') expect(handed).toEqual([['1.0', '2.0'], ['3.1']]);
    // PostgreSQL's readers may be in other processes: they are woken and read.
    else expect(handed.every((h) => h[0] === 'read')).toBe(true);
  });

  it('stores the appends of one run made at once in the order they were asked for', async () => {
    const runId = newId();
    const order: string[] = [];
    const big = Array.from({ length: 1_500 }, (_, i) => runEvent(5, i + 1, 'message', { content: `t${i}` }));
    const first = ctx.store.events.append(runId, big).then(() => order.push('big first'));
    const second = ctx.store.events.append(runId, [runEvent(6, 0, 'message_end')]).then(() => order.push('small second'));
    const other = ctx.store.events.append(newId(), [runEvent(1, 0, 'workflow_started')]).then(() => order.push('another run'));
    await Promise.all([first, second, other]);
    expect(order.filter((o) => o !== 'another run')).toEqual(['big first', 'small second']);
    expect(positions(await ctx.store.events.list(runId, { seq: 5, sub: 1_499 }, 10))).toEqual(['5.1500', '6.0']);
  });

  it('stops waking a subscriber once it unsubscribes', async () => {
    const runId = newId();
    let staleCalls = 0;
    const unsubscribeStale = await ctx.store.events.subscribe(runId, () => staleCalls++);
    await unsubscribeStale();
    const witness = firstCall();
    const unsubscribeWitness = await ctx.store.events.subscribe(runId, witness.callback);
    await ctx.store.events.append(runId, [runEvent(1, 0, 'workflow_started')]);
    await witness.called; // the notification did arrive
    expect(staleCalls).toBe(0);
    await unsubscribeWitness();
  });
}
