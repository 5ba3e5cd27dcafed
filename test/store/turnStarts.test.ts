/**
 * A session turn's rows come from one statement (src/io/store/turnStarts.ts): on PGlite and on a
 * real PostgreSQL, the statement writes the run row, the claim, the user message and event 1 and
 * wakes the run's readers — or, when another run holds the session, writes nothing at all. A run
 * without a session (a webhook's) starts with one statement too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcement, emptySession } from '../../src/core/engine';
import { openDb, type OpenedDb } from '../../src/io/store/db';
import { migrate } from '../../src/io/store/migrations';
import { createStore } from '../../src/io/store/store';
import { newId } from '../../src/io/store/time';
import { recordNewSessionTurn, recordRunStart, recordTurnStart } from '../../src/io/store/turnStarts';
import type { Store } from '../../src/io/store/contract';
import { startPostgres } from '../helpers/postgres';
import { freshTenant, newCanvas, newSession } from './cases/context';

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[test/store] turn starts on PostgreSQL skipped: ${postgres.skipped}`);
afterAll(async () => {
  if ('stop' in postgres) await postgres.stop();
});

const quiet = () => {};
const backends: Array<[string, (() => Promise<OpenedDb>) | null]> = [
  ['PGlite', () => openDb({ log: quiet })],
  ['PostgreSQL', 'skipped' in postgres ? null : () => openDb({ databaseUrl: postgres.url, log: quiet })],
];

function turnOf(tenantId: string, canvasId: string) {
  const runId = newId();
  const messageId = newId();
  const now = Date.now();
  return {
    run: { id: runId, tenantId, canvasId, workflowId: `canvas-${canvasId}-run-${runId}`, canvasVersionId: 'v1' },
    message: { role: 'user' as const, content: 'hello', id: messageId, created_at: now / 1000 },
    announcement: announcement({ runId, messageId, inputs: { a: 1 } }, now),
    now,
  };
}

describe.each(backends)('a turn start on %s', (_name, open) => {
  describe.skipIf(open === null)('', () => {
    let db: OpenedDb;
    let store: Store;
    beforeAll(async () => {
      db = await open!();
      await migrate(db);
      store = createStore(db);
    });
    afterAll(async () => {
      await db?.close();
    });

    async function woken(runId: string, act: () => Promise<unknown>): Promise<boolean> {
      let woke = false;
      const unsubscribe = await store.events.subscribe(runId, () => (woke = true));
      await act();
      for (let i = 0; i < 50 && !woke; i++) await new Promise((r) => setTimeout(r, 20));
      await unsubscribe();
      return woke;
    }

    it('claims an existing session and records the run, the user message and event 1, waking its readers', async () => {
      const tenantId = freshTenant();
      const canvas = await newCanvas(store, tenantId);
      const session = await newSession(store, tenantId, canvas.id);
      const turn = turnOf(tenantId, canvas.id);
      let recorded: Awaited<ReturnType<typeof recordTurnStart>> = null;
      expect(await woken(turn.run.id, async () => (recorded = await recordTurnStart(db, { sessionId: session.id, ...turn })))).toBe(true);
      expect(recorded).toEqual({ state: session.state });
      const after = await store.sessions.get(tenantId, canvas.id, session.id);
      expect(after?.active_run_id).toBe(turn.run.id);
      expect(after?.messages).toEqual([...session.messages, turn.message]);
      expect(await store.runs.get(tenantId, turn.run.id)).toMatchObject({
        status: 'running',
        session_id: session.id,
        create_time: turn.now,
        canvas_version_id: 'v1',
      });
      expect(await store.events.list(turn.run.id, null, 10)).toEqual([{ ...turn.announcement, terminal: false }]);
    });

    it('writes nothing when another run holds the session', async () => {
      const tenantId = freshTenant();
      const canvas = await newCanvas(store, tenantId);
      const session = await newSession(store, tenantId, canvas.id);
      expect(await store.sessions.claim(session.id, 'other-run')).toBe(true);
      const turn = turnOf(tenantId, canvas.id);
      expect(await recordTurnStart(db, { sessionId: session.id, ...turn })).toBeNull();
      const after = await store.sessions.get(tenantId, canvas.id, session.id);
      expect(after).toMatchObject({ active_run_id: 'other-run', messages: session.messages });
      expect(await store.runs.getById(turn.run.id)).toBeNull();
      expect(await store.events.list(turn.run.id, null, 10)).toEqual([]);
    });

    it('creates a session already claimed by its first turn, with the user message', async () => {
      const tenantId = freshTenant();
      const canvas = await newCanvas(store, tenantId);
      const turn = turnOf(tenantId, canvas.id);
      const fields = { id: newId(), name: 'hello', userId: 'user-1', source: 'agent', messages: [], state: emptySession() };
      let created: Awaited<ReturnType<typeof recordNewSessionTurn>> | null = null;
      expect(await woken(turn.run.id, async () => (created = await recordNewSessionTurn(db, { session: fields, ...turn })))).toBe(true);
      expect(created).toEqual(await store.sessions.get(tenantId, canvas.id, fields.id));
      expect(created).toMatchObject({ agent_id: canvas.id, active_run_id: turn.run.id, messages: [turn.message], state: emptySession() });
      expect(await store.runs.activeForSession(tenantId, fields.id)).toMatchObject({ id: turn.run.id });
      expect(await store.events.list(turn.run.id, null, 10)).toEqual([{ ...turn.announcement, terminal: false }]);
    });

    it('records a sessionless run and its event 1 once, however often its start is repeated, waking its readers', async () => {
      const tenantId = freshTenant();
      const canvas = await newCanvas(store, tenantId);
      const { message: _, ...start } = turnOf(tenantId, canvas.id);
      expect(await woken(start.run.id, () => recordRunStart(db, { sessionId: null, ...start }))).toBe(true);
      await recordRunStart(db, { sessionId: null, ...start, now: start.now + 5 });
      expect(await store.runs.get(tenantId, start.run.id)).toMatchObject({
        status: 'running',
        session_id: null,
        create_time: start.now,
        canvas_version_id: 'v1',
      });
      expect(await store.events.list(start.run.id, null, 10)).toEqual([{ ...start.announcement, terminal: false }]);
    });
  });
});
