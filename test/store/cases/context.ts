/** What every shared store case receives: the backend under test, opened once per suite. */
import { emptySession } from '../../../src/core/engine/state';
import type { RunEvent, RunEventName } from '../../../src/core/engine/runEvents';
import { newId } from '../../../src/io/store/time';
import type { Db, Store } from '../../../src/io/store/contract';

export interface StoreContext {
  /** Valid inside tests and hooks (set by the suite's beforeAll). */
  readonly store: Store;
  readonly db: Db;
  /** A new, empty database on the same backend (for migration cases); the caller closes it. */
  freshDb(): Promise<Db>;
}

/** A tenant id nobody else uses: cases never see each other's rows, even on a shared server. */
export function freshTenant(): string {
  return `tenant-${newId()}`;
}

export function minimalDsl(marker = 'v1'): Record<string, unknown> {
  return { components: { begin: { obj: { component_name: 'Begin', params: {} }, downstream: [], upstream: [] } }, marker, path: [] };
}

export function runEvent(seq: number, sub: number, event: RunEventName = 'message', data: Record<string, unknown> = {}): RunEvent {
  // The store's cases use placeholder data: the store keeps whatever it is given.
  return { seq, sub, event, message_id: 'msg-1', created_at: 1_700_000_000, task_id: 'task-1', data } as RunEvent;
}

/** The (seq, sub) pairs of events, for compact assertions. */
export function positions(events: { seq: number; sub: number }[]): string[] {
  return events.map((e) => `${e.seq}.${e.sub}`);
}

export async function newCanvas(store: Store, tenantId: string, title = 'Agent') {
  return store.canvases.create({ tenantId, title, dsl: minimalDsl() });
}

export async function newSession(store: Store, tenantId: string, agentId: string, userId = 'user-1') {
  return store.sessions.create({
    id: newId(),
    tenantId,
    agentId,
    name: 'chat',
    userId,
    source: 'agent',
    messages: [{ role: 'assistant', content: 'Hi! How can I help?' }],
    state: emptySession(),
  });
}

/** Resolves on the first call of the returned callback; rejects after `ms`. */
export function firstCall(ms = 5_000): { callback: () => void; called: Promise<void> } {
  let callback: () => void = () => {};
  const called = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not called within ${ms} ms`)), ms);
    callback = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { callback, called };
}
