/**
 * What every case must show against the uninterrupted run of its reference: the run ended with
 * the same answer, no finished model or tool call was made again, no cut-off output is stored or
 * replayed, the live stream (with its resumes) equals the replay, and the session is released.
 */
import { gapsOf } from '../../test/helpers/runFollower';
import type { Outcome } from './runCase';

/**
 * Calls made again after an identical one had finished (the model sent its whole answer, the
 * tool answered). `inFlight` repeats are allowed: the point killed the worker holding a finished
 * call's result before it reached Temporal, so the activity had not completed and must run again.
 */
function repeatedFinished(o: Outcome, inFlight: number): { model: number; tool: number } {
  let modelRepeats = 0;
  for (const c of o.calls) {
    const key = JSON.stringify(c.body.messages);
    const finishedBefore = o.calls.filter(
      (p) => p !== c && JSON.stringify(p.body.messages) === key && !p.aborted && p.endedAt !== null && p.endedAt <= c.startedAt,
    );
    if (finishedBefore.length > 0) modelRepeats += 1;
  }
  const tools = new Map<string, number>();
  for (const w of o.webCalls) {
    const key = `${w.path} ${JSON.stringify(w.body)}`;
    tools.set(key, (tools.get(key) ?? 0) + 1);
  }
  const toolRepeats = [...tools.values()].reduce((n, k) => n + k - 1, 0);
  return { model: Math.max(0, modelRepeats - inFlight), tool: Math.max(0, toolRepeats - inFlight) };
}

/** The problems of one case: empty when it passed. */
export function judge(o: Outcome, baseline: Outcome, point: string): string[] {
  const problems = [...o.stopProblems];
  if (!o.reached) return [`the point was never reached (the uninterrupted run passes: ${summarize(baseline.traced)})`];
  if (o.status !== 'finished' || !o.followed.done)
    problems.push(`the run did not end: status ${o.status}${o.followed.done ? '' : ', the stream never said [DONE]'}`);
  else if (o.content !== baseline.content)
    problems.push(`answer differs: ${JSON.stringify(cut(o.content))} instead of ${JSON.stringify(cut(baseline.content))}`);
  if (o.status === 'finished' && o.replayText !== baseline.replayText)
    problems.push(`the replayed stream shows ${JSON.stringify(cut(o.replayText))} instead of ${JSON.stringify(cut(baseline.replayText))}`);
  // Model calls are llmChat activities, tool calls (web search here) toolInvoke activities.
  const inFlight = /^(llmChat|toolInvoke)#\d+:completed$/.test(point) ? 1 : 0;
  const repeats = repeatedFinished(o, inFlight);
  if (repeats.model > 0) problems.push(`${repeats.model} finished model call(s) made again`);
  if (repeats.tool > 0) problems.push(`${repeats.tool} finished tool call(s) made again`);
  if (o.followed.duplicates.length > 0) problems.push(`the live stream sent ${o.followed.duplicates.length} event(s) twice`);
  const gaps = gapsOf(o.followed, o.log);
  if (gaps.length > 0) problems.push(`the live stream missed ${gaps.length} stored event(s) (${gaps.slice(0, 3).join(', ')}…)`);
  const hidden = new Set(o.log.filter((e) => e.superseded || e.event === 'message_retry').map((e) => e.id));
  const live = o.followed.ids.filter((id) => !hidden.has(id));
  if (o.followed.done && JSON.stringify(live) !== JSON.stringify(o.replayIds))
    problems.push(`the replay (${o.replayIds.length} events) differs from the live stream (${live.length})`);
  if (o.sessionHeld) problems.push('the session is still held by a run');
  if (o.workflowStatus !== 'COMPLETED')
    problems.push(`its workflow is ${o.workflowStatus}, not completed${o.answers.length ? ` (form answers got ${o.answers.join(', ')})` : ''}`);
  return problems;
}

/** What an uninterrupted run must show itself, or the matrix means nothing. */
export function judgeBaseline(o: Outcome): string[] {
  const problems: string[] = [];
  if (o.status !== 'finished') problems.push(`the uninterrupted run ended ${o.status}`);
  if (!o.content) problems.push('the uninterrupted run has no answer');
  if (o.sessionHeld) problems.push('the uninterrupted run left its session held');
  if (o.workflowStatus !== 'COMPLETED') problems.push(`the uninterrupted run's workflow is ${o.workflowStatus}`);
  return problems;
}

function cut(s: string): string {
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

function summarize(points: string[]): string {
  return points.length > 12 ? `${points.slice(0, 12).join(', ')}… (${points.length})` : points.join(', ');
}
