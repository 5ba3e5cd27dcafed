/**
 * Where a run's time goes, read off its history: the server's own timestamps of each workflow
 * task and activity, so ours and the floor's are compared without instrumenting either. For
 * benchmarks only (bench/orchestration.ts).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { median } from './common';

/** How many runs of each side the phases are taken over (the median of their medians). */
export const PHASE_RUNS = 5;

/** Whether a history event is of the kind whose attributes are `attr` (e.g. `activityTaskStartedEventAttributes`). */
export const isEvent = (e: object, attr: string): boolean => (e as Record<string, unknown>)[attr] != null;

/** Phases between two history events of one kind of step, by the attribute names of their events. */
const PHASES = {
  'workflow task: scheduled → started (dispatch)': ['workflowTaskScheduledEventAttributes', 'workflowTaskStartedEventAttributes'],
  'workflow task: started → completed (the worker’s work)': ['workflowTaskStartedEventAttributes', 'workflowTaskCompletedEventAttributes'],
  'activity: started → completed (its work)': ['activityTaskStartedEventAttributes', 'activityTaskCompletedEventAttributes'],
} as const;

export type Phase = keyof typeof PHASES;
export const PHASE_NAMES = Object.keys(PHASES) as Phase[];

const millis = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => (t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : 0);

/** The median of each phase over one run's history, ms (each phase is a pair of consecutive events of that step). */
export async function phaseMedians(handle: WorkflowHandle): Promise<Record<Phase, number>> {
  const events = (await handle.fetchHistory()).events ?? [];
  const out = {} as Record<Phase, number>;
  for (const name of PHASE_NAMES) {
    const [from, to] = PHASES[name];
    const spans: number[] = [];
    for (let i = 0; i + 1 < events.length; i++) {
      if (isEvent(events[i]!, from) && isEvent(events[i + 1]!, to)) spans.push(millis(events[i + 1]!.eventTime) - millis(events[i]!.eventTime));
    }
    out[name] = spans.length > 0 ? median(spans) : Number.NaN;
  }
  return out;
}

/** Where a whole run's time goes, start call → result at the client (see `runSpans`). */
export const RUN_SPAN_NAMES = [
  'client ↔ server: start call → start recorded, run completed → result (ours: the run row first)',
  'start recorded → first workflow task started (dispatch)',
  'workflow tasks: started → completed (the worker’s work, its local activities inside)',
  'the rest of the server’s record: between tasks (activities, dispatch) and after the last (its commands handled)',
] as const;
export type RunSpan = (typeof RUN_SPAN_NAMES)[number];

/**
 * A run's time (`totalMs`, start call → result, by the client's clock) split by its history. Only
 * spans between two server times are taken from the history; what lies outside the server's
 * record is the whole less the server's span, so the client's and the server's clocks are never
 * compared.
 */
export async function runSpans(handle: WorkflowHandle, totalMs: number): Promise<Record<RunSpan, number>> {
  const events = (await handle.fetchHistory()).events ?? [];
  const times = (attr: string) => events.filter((e) => isEvent(e, attr)).map((e) => millis(e.eventTime));
  const [started = 0] = times('workflowExecutionStartedEventAttributes');
  const [completed = 0] = times('workflowExecutionCompletedEventAttributes');
  const taskStarts = times('workflowTaskStartedEventAttributes');
  const work = times('workflowTaskCompletedEventAttributes').reduce((sum, end, i) => sum + end - (taskStarts[i] ?? end), 0);
  const dispatch = (taskStarts[0] ?? started) - started;
  const spans = [totalMs - (completed - started), dispatch, work, completed - started - dispatch - work];
  return Object.fromEntries(RUN_SPAN_NAMES.map((name, i) => [name, spans[i]!])) as Record<RunSpan, number>;
}

/** A table's rows: for each name, the median of each side's samples of it (ms, one decimal). */
export function medianRows<N extends string, S extends string>(
  names: readonly N[],
  samples: Record<S, Array<Record<N, number>>>,
  sides: readonly S[],
): string[][] {
  return names.map((name) => [name, ...sides.map((side) => median(samples[side].map((p) => p[name])).toFixed(1))]);
}

/** Starts a run, waits for its result and splits its time (`runSpans`). */
export async function spansOf(start: () => Promise<WorkflowHandle>): Promise<Record<RunSpan, number>> {
  const t = performance.now();
  const handle = await start();
  await handle.result();
  return runSpans(handle, performance.now() - t);
}

/** What one run's history holds, by kind. */
export async function historyCounts(handle: WorkflowHandle): Promise<Record<string, number>> {
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  return {
    'history events': events.length,
    'workflow tasks': events.filter((e) => isEvent(e, 'workflowTaskCompletedEventAttributes')).length,
    'local activities': events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
    activities: events.filter((e) => isEvent(e, 'activityTaskScheduledEventAttributes')).length,
  };
}
