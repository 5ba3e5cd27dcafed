/**
 * An ingestion pipeline's run in the run view: RAGFlow-style events in the run's log, written by
 * the pipeline's activities (workflow_started when it loads, node_started/node_finished around
 * each step, workflow_finished or run_failed/run_canceled at the end) and the run row's status.
 * Slots are fixed (workflow_started 1 as an agent run's, step i started 2+2i, finished 3+2i), so a retried activity writes
 * the same (seq, sub) again and the log keeps the first. Outputs are summaries (counts), never
 * payloads. Without a run id (a workflow started before runs were recorded) nothing is written.
 */
import { isEvent, runEvent, type EventData, type RunEventName, type RunEventOf } from '../../core/engine/runEvents';
import type { PipelineStep } from '../../core/pipeline/types';
import type { PipelinePayload } from './pipeline/contract';
import type { Store } from '../store/contract';

export interface PipelineRunRef {
  /** The `runs` row the API recorded for this pipeline run. */
  runId?: string;
}

const event = <K extends RunEventName>(runId: string, seq: number, name: K, data: EventData<K>, nowMs = Date.now()): RunEventOf<K> =>
  runEvent({ seq, sub: 0, message_id: runId, created_at: Math.floor(nowMs / 1000), task_id: runId }, name, data);

const stepData = (step: PipelineStep) => ({ component_id: step.id, component_name: step.component, component_type: step.component });

/** What a payload holds, as counts (the run view's outputs summary). */
export function payloadSummary(payload: PipelinePayload): Record<string, unknown> {
  const summary: Record<string, unknown> = {};
  if (payload.output_format) summary.output_format = payload.output_format;
  if (Array.isArray(payload.chunks)) summary.chunks = payload.chunks.length;
  if (Array.isArray(payload.json)) summary.json_items = payload.json.length;
  for (const key of ['markdown', 'text', 'html'] as const) if (typeof payload[key] === 'string') summary[`${key}_chars`] = payload[key].length;
  return summary;
}

export function pipelineRunEvents(store: Store) {
  return {
    async started(ref: PipelineRunRef, inputs: Record<string, unknown>): Promise<void> {
      if (!ref.runId) return;
      await store.events.append(ref.runId, [event(ref.runId, 1, 'workflow_started', { inputs, created_at: Date.now() / 1000 })]);
    },

    async nodeStarted(ref: PipelineRunRef, index: number, step: PipelineStep): Promise<void> {
      if (!ref.runId) return;
      const now = Date.now();
      await store.events.append(ref.runId, [event(ref.runId, 2 + 2 * index, 'node_started', { inputs: null, ...stepData(step), created_at: now / 1000 }, now)]);
    },

    /** node_finished; the elapsed time counts from the step's node_started (its first attempt). */
    async nodeFinished(ref: PipelineRunRef, index: number, step: PipelineStep, outputs: Record<string, unknown>): Promise<void> {
      if (!ref.runId) return;
      const now = Date.now();
      const started = (await store.events.list(ref.runId, { seq: 2 + 2 * index, sub: -1 }, 1))[0];
      const startedAt =
        started?.seq === 2 + 2 * index && isEvent(started, 'node_started') && typeof started.data.created_at === 'number'
          ? started.data.created_at * 1000
          : now;
      await store.events.append(ref.runId, [
        event(ref.runId, 3 + 2 * index, 'node_finished', {
          inputs: {},
          outputs,
          ...stepData(step),
          error: null,
          elapsed_time: Math.max(0, now - startedAt) / 1000,
          created_at: startedAt / 1000,
        }),
      ]);
    },

    /** workflow_finished after the last step (once: a retried commit finds it), and the run row finished with the summary. */
    async finished(ref: PipelineRunRef, outputs: Record<string, unknown>): Promise<void> {
      if (!ref.runId) return;
      const last = await store.runs.lastEvent(ref.runId);
      if (!last?.terminal)
        await store.events.append(ref.runId, [event(ref.runId, (last?.seq ?? 0) + 1, 'workflow_finished', { outputs, created_at: Date.now() / 1000 })]);
      await store.runs.setStatus(ref.runId, 'finished', { result: { outputs } });
    },

    /** The end of a run that did not succeed: run_failed, or run_canceled then workflow_finished; after its last event. */
    async ended(ref: PipelineRunRef, outcome: 'FAIL' | 'CANCEL', message: string): Promise<void> {
      if (!ref.runId) return;
      const last = await store.runs.lastEvent(ref.runId);
      if (!last?.terminal) {
        const seq = (last?.seq ?? 0) + 1;
        await store.events.append(
          ref.runId,
          outcome === 'CANCEL'
            ? [event(ref.runId, seq, 'run_canceled', { reason: message }), event(ref.runId, seq + 1, 'workflow_finished', { outputs: {}, canceled: true })]
            : [event(ref.runId, seq, 'run_failed', { error: message })],
        );
      }
      await store.runs.setStatus(ref.runId, outcome === 'CANCEL' ? 'canceled' : 'failed', { error: message });
    },
  };
}
