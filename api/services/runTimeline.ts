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

const PERSON_TYPES = new Set(['UserFillUp']);

/** The bars: executions in start order, each with its segments in time order. */
export function timelineOf(events: readonly StoredEvent[], traces: readonly CallTrace[], waits: readonly ActivityWait[], now: number): Execution[] {
  const execs: Execution[] = [];
  const open = new Map<string, Execution>();
  for (const e of events) {
    if (e.event === 'node_started') {
      const d = e.data;
      const x: Execution = {
        node_id: d.component_id,
        name: d.component_name,
        type: d.component_type,
        index: execs.filter((o) => o.node_id === d.component_id).length,
        start: d.created_at * 1000,
        end: null,
        status: PERSON_TYPES.has(d.component_type) ? 'waiting_for_person' : 'running',
        error: null,
        segments: [],
      };
      execs.push(x);
      open.set(d.component_id, x);
    } else if (e.event === 'node_finished') {
      const d = e.data;
      let x = open.get(d.component_id);
      if (!x) {
        // A node that finished without a start event (reused by a fork, or a pipeline's step).
        x = { node_id: d.component_id, name: d.component_name, type: d.component_type, index: 0, start: d.created_at * 1000, end: null, status: 'running', error: null, segments: [] };
        x.index = execs.filter((o) => o.node_id === d.component_id).length;
        execs.push(x);
      }
      open.delete(d.component_id);
      // node_finished carries the exact start (node_started's is rounded to the second).
      x.start = d.created_at * 1000;
      x.end = x.start + d.elapsed_time * 1000;
      x.error = d.error;
      x.status = d.error ? 'failed' : 'done';
    }
  }
  for (const x of execs) {
    if (PERSON_TYPES.has(x.type)) x.segments.push({ kind: 'person', start: x.start, end: x.end ?? now });
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
