/**
 * The events a run has before the engine runs it: its announcement (`workflow_started`, event 1,
 * which the API records when it accepts the run) and, for a run that cannot start, its refusal.
 */
import type { RunStartInput } from './run';
import type { RunEvent } from './runEvents';

type RunIdentity = Pick<RunStartInput, 'runId' | 'messageId' | 'inputs'>;

/**
 * Events for a run that cannot start (its canvas no longer compiles): `workflow_started` then
 * `run_failed`, so clients waiting on the run see why.
 */
export function rejectRun(input: RunIdentity, message: string, now: number): RunEvent[] {
  return [announcement(input, now), { ...announcement(input, now), seq: 2, event: 'run_failed', data: { error: message } }];
}

/** A run's first event, `workflow_started` (seq 1): what the API records when it accepts a run. */
export function announcement(input: RunIdentity, now: number): RunEvent {
  return {
    message_id: input.messageId,
    created_at: Math.floor(now / 1000),
    task_id: input.runId,
    seq: 1,
    sub: 0,
    event: 'workflow_started',
    data: { inputs: input.inputs ?? null },
  };
}
