/**
 * The process's Prometheus metrics: one registry per process, shared by whichever roles it runs
 * (API, worker or both), so one scrape of `/metrics` sees everything the process did. A module
 * singleton on purpose: the hook points (the event log, SSE streams, run activities) are spread
 * over layers that do not share a dependency bag, and prom-client's own default registry is the
 * same idea; ours is private so a library registering metrics cannot collide with our names.
 *
 * Labels have bounded values only (run status, component type, activity type): never tenant,
 * canvas, run ids or component display names, which grow with use.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isEvent, type RunEvent } from '../../core/engine/runEvents';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Runs the API accepted and handed to Temporal. */
export const runsStarted = new Counter({
  name: 'agent_canvas_runs_started_total',
  help: 'Runs this process started on Temporal (API: completions, /runs, webhooks).',
  registers: [registry],
});

/** Runs a worker of this process closed, by how they ended. */
export const runsEnded = new Counter({
  name: 'agent_canvas_runs_ended_total',
  help: 'Runs this process finalized, by status (finished, failed, canceled). At least once: a retried finalize counts again.',
  labelNames: ['status'] as const,
  registers: [registry],
});

/** Component execution times as node_finished reports them (RAGFlow's elapsed_time). */
export const nodeDuration = new Histogram({
  name: 'agent_canvas_node_duration_seconds',
  help: 'Time from node_started to node_finished, by component type (LLM, Agent, Retrieval...).',
  labelNames: ['component'] as const,
  buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

/** Activity attempts after the first, as the worker starts them. */
export const activityRetries = new Counter({
  name: 'agent_canvas_activity_retries_total',
  help: 'Activity executions with attempt > 1 (a retry by Temporal), by activity type.',
  labelNames: ['activity'] as const,
  registers: [registry],
});

/** Open server-sent-event streams of this API process. */
export const sseClients = new Gauge({
  name: 'agent_canvas_sse_clients',
  help: 'SSE streams this API process is serving now (run events, streamed completions).',
  registers: [registry],
});

/** One append to the event log (one INSERT ... RETURNING per chunk of up to 500 events). */
export const eventAppendSeconds = new Histogram({
  name: 'agent_canvas_event_append_seconds',
  help: 'Latency of writing events to the run event log (store events.append), failed writes included.',
  labelNames: ['outcome'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

/** Times `write` into the event-append histogram, labelled ok or error. */
export async function timeEventAppend<T>(write: () => Promise<T>): Promise<T> {
  const end = eventAppendSeconds.startTimer();
  try {
    const result = await write();
    end({ outcome: 'ok' });
    return result;
  } catch (err) {
    end({ outcome: 'error' });
    throw err;
  }
}

/** Observes the node_finished events among `events` (what the run activities record). */
export function observeNodeEvents(events: readonly RunEvent[]): void {
  for (const e of events) {
    if (!isEvent(e, 'node_finished')) continue;
    const elapsed = e.data.elapsed_time;
    const component = e.data.component_type;
    if (typeof elapsed !== 'number' || !Number.isFinite(elapsed)) continue;
    nodeDuration.observe({ component: typeof component === 'string' ? component : 'unknown' }, Math.max(0, elapsed));
  }
}

/** Counts an SSE stream until the returned function is called (once; later calls do nothing). */
export function trackSseClient(): () => void {
  sseClients.inc();
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    sseClients.dec();
  };
}
