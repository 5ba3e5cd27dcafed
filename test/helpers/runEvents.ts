/**
 * Tests read run events through the event map (src/core/engine/eventMap.ts) as the product does:
 * typed finders instead of casts, and a check that every event a test sees is one the map
 * describes, so a producer that emits an undescribed event or field fails the test that ran it.
 */
import { eventProblems, isEvent, type EventData, type RunEvent, type RunEventName, type RunEventOf } from '../../src/core/engine/runEvents';
import type { Store } from '../../src/io/store/contract';

type AnyEvent = { event: string; data: unknown };

/** The first `name` event whose data passes `where`. */
export function findEvent<K extends RunEventName, E extends AnyEvent>(
  events: readonly E[],
  name: K,
  where: (data: EventData<K>) => boolean = () => true,
): (E & RunEventOf<K>) | undefined {
  return events.find((e): e is E & RunEventOf<K> => isEvent(e, name) && where(e.data));
}

/** The node_finished of one component (its first). */
export function nodeFinished<E extends AnyEvent>(events: readonly E[], componentId: string): (E & RunEventOf<'node_finished'>) | undefined {
  return findEvent(events, 'node_finished', (d) => d.component_id === componentId);
}

/** The data of an event the test expects to be named `name` (throws when it is not). */
export function dataOf<K extends RunEventName>(e: AnyEvent | undefined, name: K): EventData<K> {
  if (!e || !isEvent(e, name)) throw new Error(`expected a ${name} event, got ${e ? e.event : 'none'}`);
  return e.data;
}

/** The component an event is about, when it names one. */
export function componentOf(e: RunEvent): string | undefined {
  return 'component_id' in e.data ? e.data.component_id : undefined;
}

/** Throws naming every event (and field) the event map does not describe. */
export function expectEventsInMap(events: readonly unknown[]): void {
  const problems = events.flatMap(eventProblems);
  if (problems.length > 0) throw new Error(`events the event map does not describe:\n${problems.join('\n')}`);
}

/**
 * Checks every event appended to `store` against the event map (the store is shared by the API
 * and the worker in tests, so this sees every producer). Returns the list the problems collect
 * in; a harness fails when it closes with any.
 */
export function checkAppendedEvents(store: Store): string[] {
  const problems: string[] = [];
  const check = (runId: string, events: readonly RunEvent[]) => {
    const found = events.flatMap(eventProblems);
    if (found.length === 0) return;
    problems.push(...found.map((p) => `run ${runId}: ${p}`));
    console.error(`[event map] run ${runId} wrote events the map does not describe:\n${found.join('\n')}`);
  };
  const append = store.events.append.bind(store.events);
  store.events.append = (runId, events) => {
    check(runId, events);
    return append(runId, events);
  };
  // A run's last events are written with its end (finalizeRun), not through append.
  const finish = store.runs.finish.bind(store.runs);
  store.runs.finish = (runId, end, events) => {
    check(runId, events);
    return finish(runId, end, events);
  };
  return problems;
}
