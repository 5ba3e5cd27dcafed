/**
 * A run's end as writes that ride along with its closing events (events.ts `appendAlong`): the run
 * row, and the session it held, completed or released. One statement instead of three: a reader
 * that sees the terminal event finds the row ended and the session free (there is no moment
 * between them to observe), and on PGlite, whose one connection runs every statement of the
 * process in turn, a run's end queues once.
 */
import type { AlongWrites } from './events';
import { jsonParam } from './sql';
import type { Stamp } from './time';
import type { RunEnd, RunRecordStatus } from './contract';

const ENDED: ReadonlySet<RunRecordStatus> = new Set(['finished', 'failed', 'canceled']);

/** Whether a run with this status has ended (its row gets a finish time; runs.setStatus asks too). */
export function endsRun(status: RunRecordStatus): boolean {
  return ENDED.has(status);
}

export function runEndWrites(runId: string, end: RunEnd, now: Stamp): AlongWrites {
  return (param) => {
    const run = param(runId);
    const writes = [
      `ended_run AS (
         UPDATE runs SET status = ${param(end.status)}, update_time = ${param(now.time)}, finish_time = ${param(endsRun(end.status) ? now.time : null)},
                         result = ${param(end.result === null ? null : jsonParam(end.result))}::json, error = ${param(end.error)}::text
         WHERE id = ${run})`,
    ];
    const session = end.session;
    // Only the run holding the session may end its turn, once: a retry finds the claim gone.
    if (session?.completed) {
      writes.push(`ended_turn AS (
         UPDATE sessions SET messages = messages || ${param(jsonParam(session.completed.messages))}::jsonb, state = ${param(jsonParam(session.completed.state))}::jsonb,
                             active_run_id = NULL, update_time = ${param(now.time)}, update_date = ${param(now.date)}
         WHERE id = ${param(session.id)} AND active_run_id = ${run})`);
    } else if (session) {
      writes.push(`released AS (UPDATE sessions SET active_run_id = NULL WHERE id = ${param(session.id)} AND active_run_id = ${run})`);
    }
    return writes.join(', ');
  };
}
