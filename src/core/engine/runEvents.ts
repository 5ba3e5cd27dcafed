/**
 * Run events, RAGFlow's contract (SPEC §5) plus our extensions, typed by the event map
 * (./eventMap.ts). The engine produces them with a sequence number; streamed tokens written by
 * activities share the number of the slot the engine reserved and add a sub-number, so (seq, sub)
 * orders a run's whole event log.
 */
import type { CompiledCanvas } from './compile';
import { isEvent, runEvent, type EventBody, type EventData, type RunEvent, type RunEventName, type RunEventOf } from './eventMap';
import type { RunState } from './state';

export {
  EXTENSION_EVENTS,
  RAGFLOW_EVENTS,
  RUN_EVENT_NAMES,
  eventProblems,
  isEvent,
  isRunEventName,
  runEvent,
  type EventBody,
  type EventData,
  type EventEnvelope,
  type RunEvent,
  type RunEventName,
  type RunEventOf,
} from './eventMap';

/** Where a child run's events are mirrored: a slot of its parent's log (InvokeCanvas). */
export interface NestTarget {
  runId: string;
  seq: number;
  createdAt: number;
  messageId: string;
  componentId: string;
}

/**
 * A child run's event as its parent's stream shows it: wrapped (so the child's
 * `workflow_finished` never reads as the parent's), at the parent's slot, ordered by the child's
 * own sequence. Streamed tokens (sub > 0) stay in the child's log.
 */
export function nestEvents(target: NestTarget, events: RunEvent[]): RunEvent[] {
  return events
    .filter((e) => e.sub === 0)
    .map((e) =>
      runEvent({ seq: target.seq, sub: e.seq, message_id: target.messageId, created_at: target.createdAt, task_id: target.runId }, 'child_event', {
        component_id: target.componentId,
        task_id: e.task_id,
        event: e.event,
        data: e.data,
      }),
    );
}

/** Events after which a run produces nothing more. */
/** The text a `message` event adds to the reply as readers render it (think marks as tags); '' for other events. */
export function shownText(e: EventBody): string {
  if (!isEvent(e, 'message')) return '';
  return e.data.content + (e.data.start_to_think ? '<think>' : e.data.end_to_think ? '</think>' : '');
}

export function isTerminalEvent(name: string): boolean {
  return name === 'workflow_finished' || name === 'run_failed';
}

/** Collects the events of one engine step. */
export class EventSink {
  readonly events: RunEvent[] = [];

  constructor(private readonly state: RunState) {}

  emit<K extends RunEventName>(event: K, data: EventData<K>): RunEventOf<K> {
    this.state.events.lastSeq += 1;
    const envelope = { seq: this.state.events.lastSeq, sub: 0, message_id: this.state.messageId, created_at: this.state.createdAt, task_id: this.state.runId };
    const e = runEvent(envelope, event, data);
    this.events.push(e);
    return e;
  }

  /** Reserves a sequence number for a stream written by an activity. */
  reserve(): number {
    this.state.events.lastSeq += 1;
    return this.state.events.lastSeq;
  }
}

/** Outputs as events show them: internal bookkeeping keys left out, errors kept. */
export function publicOutputs(outputs: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(outputs ?? {})) {
    if (k === '_created_time' || k === '_elapsed_time') continue;
    out[k] = v;
  }
  return out;
}

export function nodeStartedData(canvas: CompiledCanvas, id: string, thoughts: string, nowMs: number): EventData<'node_started'> {
  const node = canvas.nodes[id]!;
  return {
    inputs: null,
    created_at: Math.floor(nowMs / 1000),
    component_id: id,
    component_name: node.displayName,
    component_type: node.type,
    thoughts,
  };
}

export function nodeFinishedData(canvas: CompiledCanvas, state: RunState, id: string, nowMs: number): EventData<'node_finished'> {
  const node = canvas.nodes[id]!;
  const ns = state.nodes[id];
  const started = ns?.startedAt ?? nowMs;
  const finished = ns?.finishedAt ?? nowMs;
  return {
    inputs: state.nodeInputs[id] ?? {},
    outputs: publicOutputs(state.outputs[id]),
    component_id: id,
    component_name: node.displayName,
    component_type: node.type,
    error: ns?.error ?? null,
    elapsed_time: Math.max(0, finished - started) / 1000,
    created_at: started / 1000,
  };
}
