/**
 * What "exact" means for a scenario run: the text a live SSE client ends with (over every resume,
 * message_retry applied as the page and the SDKs apply it) equals the text a later replay of the
 * run's events gives, equals the run's stored result, equals the model's answer. And no model call
 * made again after its activity had completed (calls repeated because their attempt was cut off
 * mid-call are what the scenario forces, counted apart).
 */
import type { FollowedRun } from '../../test/helpers/runFollower';
import type { RoundTally } from '../chaos/rounds';

/** The reply text a client shows once it has applied these events, in order. */
export function shownText(events: Array<Record<string, unknown>>): string {
  let text = '';
  for (const e of events) {
    const data = (e.data ?? {}) as Record<string, unknown>;
    if (e.event === 'message' && typeof data.content === 'string') text += data.content;
    if (e.event === 'message_retry') text = text.slice(0, Math.max(0, text.length - (Number(data.discard_chars) || 0)));
  }
  return text;
}

export interface RunVerdict {
  runId: string;
  status: string;
  live: string;
  replay: string;
  result: string;
  exact: boolean;
  resumes: number;
  modelCalls: number;
  rounds: RoundTally;
}

export function verdictOf(opts: {
  runId: string;
  status: string;
  expected: string;
  live: FollowedRun;
  replay: FollowedRun;
  result: string;
  modelCalls: number;
  rounds: RoundTally;
}): RunVerdict {
  const live = shownText(opts.live.events);
  const replay = shownText(opts.replay.events);
  const exact =
    opts.live.done && opts.replay.done && opts.status === 'finished' && live === opts.expected && replay === opts.expected && opts.result === opts.expected;
  return {
    runId: opts.runId,
    status: opts.status,
    live,
    replay,
    result: opts.result,
    exact,
    resumes: opts.live.resumes,
    modelCalls: opts.modelCalls,
    rounds: opts.rounds,
  };
}

export interface ScenarioReport {
  scenario: string;
  faultS: number;
  heartbeatTimeoutMs: number;
  /** Model streams still open when the fault began (the ones it could hit). */
  inFlightAtFault: number;
  /** Streams the fault hit: on the worker frozen or cut off; for the outage, every stream in flight. */
  faulted: number;
  verdicts: RunVerdict[];
  wallMs: number;
}

/** A short excerpt around the first difference, for a run that was not exact. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at char ${i}: "${a.slice(Math.max(0, i - 20), i + 40)}" vs expected "${b.slice(Math.max(0, i - 20), i + 40)}"`;
}

export function reportTable(r: ScenarioReport, expected: string): string {
  const v = r.verdicts;
  const sum = (f: (x: RunVerdict) => number) => v.reduce((n, x) => n + f(x), 0);
  const rows: Array<[string, string]> = [
    ['exact streams (live = replay = result)', `${v.filter((x) => x.exact).length}/${v.length}`],
    ['runs finished', `${v.filter((x) => x.status === 'finished').length}/${v.length}`],
    ['streams in flight when the fault began', `${r.inFlightAtFault}/${v.length}`],
    ['streams the fault hit (on the faulted worker)', `${r.faulted}/${v.length}`],
    ['fault', `${r.faultS} s, heartbeat timeout ${r.heartbeatTimeoutMs} ms`],
    ['model calls (runs × 1 without the fault)', `${sum((x) => x.modelCalls)} for ${v.length} runs`],
    ['finished calls made again', String(sum((x) => x.rounds.repeatedFinished))],
    ['calls made again after an attempt was cut off', String(sum((x) => x.rounds.repeatedInFlight))],
    ['SSE resumes', String(sum((x) => x.resumes))],
    ['wall time', `${(r.wallMs / 1000).toFixed(1)} s`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, val]) => `  ${k.padEnd(width)}  ${val}`);
  for (const x of v.filter((y) => !y.exact)) {
    const which =
      x.live !== expected
        ? `live ${firstDifference(x.live, expected)}`
        : x.replay !== expected
          ? `replay ${firstDifference(x.replay, expected)}`
          : `result ${firstDifference(x.result, expected)}`;
    lines.push(`  NOT EXACT ${x.runId} (${x.status}): ${which}`);
  }
  return lines.join('\n');
}
