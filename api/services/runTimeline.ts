/**
 * A run's timeline (issue 36): one bar per node execution, from the run's events, with what its
 * time went to — waiting in the task queue (Temporal history, api/services/activityWaits.ts),
 * waiting for provider capacity, each model call attempt and the wait before a retry (the call
 * traces, migration 16), and the time a UserFillUp waited for a person. Pure: inputs in, bars out.
 */
import type { CallTrace, StoredEvent } from '../../src/io/store/contract';

export type SegmentKind = 'queue' | 'capacity' | 'attempt' | 'retry_wait' | 'person';

export interface Segment {
  kind: SegmentKind;
  start: number;
  end: number;
  attempt?: number;
  outcome?: 'ok' | 'failed';
  error?: string | null;
}

export interface Execution {
  node_id: string;
  name: string;
  type: string;
  /** 0-based: the node's n-th execution (an Iteration's body runs once per item). */
  index: number;
  start: number;
  /** null while it runs (or waits). */
  end: number | null;
  status: 'running' | 'done' | 'failed' | 'waiting_for_person';
  error: string | null;
  segments: Segment[];
}

/** When an activity of a node was scheduled and started (the last attempt), from Temporal history. */
export interface ActivityWait {
  node_id: string;
  scheduled: number;
  started: number;
  attempt: number;
}

/**
 * The bars: executions in start order, each with its segments in time order. A pause (RAGFlow's
 * `user_inputs`, written before the form's node runs) lasts from the end of what ran before it to
 * the start of the node that runs once the person answered: drawn as that node's `person` segment,
 * its bar starting with the pause. A pause still open is a bar of the node(s) `pausedIds` names.
 */
export function timelineOf(
  events: readonly StoredEvent[],
  traces: readonly CallTrace[],
  waits: readonly ActivityWait[],
  now: number,
  pausedIds: readonly string[] = [],
): Execution[] {
  const execs: Execution[] = [];
  const open = new Map<string, Execution>();
  /** When the run last moved (a node finished, or it started): where a pause begins. */
  let lastMoved = events[0] ? events[0].created_at * 1000 : now;
  let pausedSince: number | null = null;
  const add = (id: string, name: string, type: string, start: number): Execution => {
    const index = execs.filter((o) => o.node_id === id).length;
    const x: Execution = { node_id: id, name, type, index, start, end: null, status: 'running', error: null, segments: [] };
    if (pausedSince !== null) {
      x.segments.push({ kind: 'person', start: pausedSince, end: Math.max(pausedSince, start) });
      x.start = pausedSince;
      pausedSince = null;
    }
    execs.push(x);
    return x;
  };
  for (const e of events) {
    if (e.event === 'user_inputs') pausedSince = lastMoved;
    else if (e.event === 'node_started') {
      const d = e.data;
      open.set(d.component_id, add(d.component_id, d.component_name, d.component_type, d.created_at * 1000));
    } else if (e.event === 'node_finished') {
      const d = e.data;
      // node_finished carries the exact start (node_started's is rounded down to the second).
      const exact = d.created_at * 1000;
      const x = open.get(d.component_id) ?? add(d.component_id, d.component_name, d.component_type, exact);
      open.delete(d.component_id);
      const person = x.segments.find((g) => g.kind === 'person');
      if (person) person.end = Math.max(person.start, exact);
      x.start = person ? person.start : exact;
      x.end = exact + d.elapsed_time * 1000;
      x.error = d.error;
      x.status = d.error ? 'failed' : 'done';
      lastMoved = Math.max(lastMoved, x.end);
    }
  }
  if (pausedSince !== null) {
    const since = pausedSince;
    for (const id of pausedIds.length > 0 ? pausedIds : ['(form)']) {
      const index = execs.filter((o) => o.node_id === id).length;
      execs.push({
        node_id: id,
        name: id,
        type: 'UserFillUp',
        index,
        start: since,
        end: null,
        status: 'waiting_for_person',
        error: null,
        segments: [{ kind: 'person', start: since, end: now }],
      });
    }
  }
  addCallSegments(execs, traces, now);
  for (const w of waits) {
    const x = holder(execs, w.node_id, w.started);
    if (x && w.started > w.scheduled) x.segments.push({ kind: 'queue', start: w.scheduled, end: w.started, attempt: w.attempt });
  }
  for (const x of execs) x.segments.sort((a, b) => a.start - b.start || a.end - b.end);
  return execs.sort((a, b) => a.start - b.start);
}

/** The execution of `nodeId` that was going on at `t` (the latest one started by then, with a second's slack for rounding). */
function holder(execs: readonly Execution[], nodeId: string | null, t: number): Execution | undefined {
  const mine = execs.filter((x) => x.node_id === nodeId && x.start <= t + 1000);
  return mine.at(-1) ?? execs.find((x) => x.node_id === nodeId);
}

function addCallSegments(execs: Execution[], traces: readonly CallTrace[], now: number): void {
  const lastEnd = new Map<string, number>();
  for (const t of [...traces].sort((a, b) => a.startedAt - b.startedAt)) {
    const x = holder(execs, t.nodeId, t.startedAt);
    if (!x) continue;
    const sent = t.startedAt + t.capacityWaitMs;
    // The wait before a retry: from the failed attempt's end to this attempt's start.
    const previous = lastEnd.get(t.activityId);
    if (t.attempt > 1 && previous !== undefined && t.startedAt > previous)
      x.segments.push({ kind: 'retry_wait', start: previous, end: t.startedAt, attempt: t.attempt });
    if (t.capacityWaitMs > 0) x.segments.push({ kind: 'capacity', start: t.startedAt, end: sent, attempt: t.attempt });
    const end = Math.min(sent + t.durationMs, Math.max(now, sent));
    x.segments.push({ kind: 'attempt', start: sent, end, attempt: t.attempt, outcome: t.outcome, error: t.error });
    lastEnd.set(t.activityId, end);
  }
}
