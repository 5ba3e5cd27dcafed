/**
 * The events a run has before the engine runs it: its announcement (`workflow_started`, event 1,
 * which the API records when it accepts the run) and, for a run that cannot start, its refusal.
 */
import type { RunStartInput } from './run';
import { runEvent, type EventEnvelope, type RunEvent, type RunEventOf } from './runEvents';

type RunIdentity = Pick<RunStartInput, 'runId' | 'messageId' | 'inputs'>;

/**
 * Events for a run that cannot start (its canvas no longer compiles): `workflow_started` then
 * `run_failed`, so clients waiting on the run see why.
 */
export function rejectRun(input: RunIdentity, message: string, now: number): RunEvent[] {
  const first = announcement(input, now);
  return [first, runEvent({ ...envelopeOf(first), seq: 2 }, 'run_failed', { error: message })];
}

/** A run's first event, `workflow_started` (seq 1): what the API records when it accepts a run. */
export function announcement(input: RunIdentity, now: number): RunEventOf<'workflow_started'> {
  return runEvent({ message_id: input.messageId, created_at: Math.floor(now / 1000), task_id: input.runId, seq: 1, sub: 0 }, 'workflow_started', {
    inputs: input.inputs ?? null,
  });
}

function envelopeOf(e: RunEvent): EventEnvelope {
  return { seq: e.seq, sub: e.sub, message_id: e.message_id, created_at: e.created_at, task_id: e.task_id };
}
