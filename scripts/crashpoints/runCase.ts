/**
 * One case of the matrix: a reference run started through the API and followed over SSE while
 * the worker (or the API) is stopped at one point, then started again; or, with no point, the
 * uninterrupted run the cases are compared with. What came out is an Outcome; checks.ts judges it.
 */
import { writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { parseSse } from '../../test/helpers/appHarness';
import { followRun, storedLog, type FollowedRun, type StoredEventRow } from '../../test/helpers/runFollower';
import type { RecordedCall } from '../../test/helpers/scriptedLlm';
import type { WebSearchCall } from '../../test/helpers/webSearchServer';
import { answerForm, callApi, startRun } from './client';
import { arm, disarm, hasFired, resumeFile, tracedPoints, type CrashAction } from './control';
import type { Pacer, Reference } from './references';
import { SHUTDOWN_TIMEOUT_MS, type Topology } from './topology';

/** How the process is stopped at a point. */
export type StopKind = 'sigkill' | 'graceful' | 'api-kill' | 'temporal-restart';
export const STOP_KINDS: StopKind[] = ['sigkill', 'graceful', 'api-kill', 'temporal-restart'];

/**
 * What the worker does at the point. `temporal-restart`: the worker SIGKILLs itself there, the
 * API is killed with it (a client's request in flight breaks), and the Temporal server restarts
 * before both come back (what it held only in memory, an update not yet in history, is gone).
 */
export const ACTION: Record<StopKind, CrashAction> = { sigkill: 'sigkill', graceful: 'sigterm', 'api-kill': 'pause', 'temporal-restart': 'sigkill' };

export interface Outcome {
  runId: string;
  status: string;
  content: string;
  /** The model calls and tool (web search) calls made while the case ran. */
  calls: RecordedCall[];
  webCalls: WebSearchCall[];
  followed: FollowedRun;
  log: StoredEventRow[];
  /** Event ids a reader starting after the end gets, and the text their `message` events show. */
  replayIds: string[];
  replayText: string;
  /** The session still names a run as its holder. */
  sessionHeld: boolean;
  /** The run's workflow execution status in Temporal (COMPLETED when it ended). */
  workflowStatus: string;
  /** What each form answer sent got (HTTP status; 0: the connection broke). */
  answers: number[];
  /** The point was reached (always true without one). */
  reached: boolean;
  /** Points the worker passed (the uninterrupted run's are the points a case can name). */
  traced: string[];
  /** What went wrong stopping or restarting a process. */
  stopProblems: string[];
}

export interface CaseSpec {
  caseId: string;
  reference: Reference;
  agentId: string;
  /** A point as the worker names it (`llmChat#2:started`), or `llmChat#n:mid-stream` (the nth model call, cut by the harness). */
  point: string | null;
  stop: StopKind;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MID_STREAM = /^llmChat#(\d+):mid-stream$/;

export async function waitFor(cond: () => boolean, until: number, everyMs = 50): Promise<boolean> {
  while (!cond()) {
    if (Date.now() > until) return false;
    await sleep(everyMs);
  }
  return true;
}

async function sessionHeld(databaseUrl: string, sessionId: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ active_run_id: string | null }>('SELECT active_run_id FROM sessions WHERE id = $1', [sessionId]);
    return r.rows[0]?.active_run_id != null;
  } finally {
    await client.end();
  }
}

/** Stops what `stop` names, now, and starts it again; returns what went wrong. */
export async function stopAndRestart(t: Topology, spec: Pick<CaseSpec, 'caseId' | 'stop'>, harnessCuts: boolean): Promise<string[]> {
  const problems: string[] = [];
  if (spec.stop === 'api-kill') {
    await t.kill(t.api);
    writeFileSync(resumeFile(t.controlDir, spec.caseId), '');
    await t.start(t.api);
    return problems;
  }
  if (harnessCuts) {
    if (spec.stop === 'sigkill') await t.kill(t.worker);
    else t.worker.app?.proc.kill('SIGTERM');
  }
  const bound = spec.stop === 'graceful' ? SHUTDOWN_TIMEOUT_MS + 15_000 : 15_000;
  if (!(await t.exited(t.worker, bound))) {
    problems.push(`the worker did not exit within ${bound} ms of its ${spec.stop === 'graceful' ? 'SIGTERM' : 'SIGKILL'}`);
    await t.kill(t.worker);
  }
  if (spec.stop === 'temporal-restart') {
    if (!t.restartTemporal) throw new Error('temporal-restart needs a Temporal server the harness started (the Temporal CLI was not found)');
    await t.kill(t.api);
    await t.restartTemporal();
  }
  // The worker first: the API's /health waits for a poller.
  await t.start(t.worker);
  await t.start(t.api);
  return problems;
}

export async function runCase(t: Topology, pacer: Pacer, spec: CaseSpec): Promise<Outcome> {
  const deadline = Date.now() + 120_000;
  const callsFrom = t.llm.calls.length;
  const webFrom = t.web.calls.length;
  const midStream = spec.point ? MID_STREAM.exec(spec.point) : null;
  pacer.from = callsFrom;
  pacer.nth = midStream ? Number(midStream[1]) : 0;
  // Without a point the worker only traces; a mid-stream point is cut by the harness, not the hook.
  arm(t.controlDir, { caseId: spec.caseId, point: midStream ? null : spec.point, action: ACTION[spec.stop] });

  const { runId, sessionId } = await startRun(t, spec.agentId, spec.reference.query, deadline);
  let lastMessageAt = 0;
  let asked = false;
  const answers: number[] = [];
  const follow = followRun({
    runId,
    bases: () => [t.api.base],
    headers: { authorization: t.auth.authorization ?? '' },
    timeoutMs: deadline - Date.now(),
    onEvent: (e) => {
      if (e.event === 'message') lastMessageAt = Date.now();
      if (e.event !== 'user_inputs' || asked || !spec.reference.form) return;
      asked = true;
      void answerForm(t, runId, spec.reference.form, deadline).then(
        (statuses) => answers.push(...statuses),
        () => answers.push(-1),
      );
    },
  });
  // The stream can end (its last events are written by a local activity) before the workflow
  // task that completes the run does: a point in that task fires a moment after the end.
  let endedAt = Infinity;
  void follow.finally(() => (endedAt = Date.now()));
  const ended = () => Date.now() > endedAt + 3_000;

  let reached = spec.point === null;
  let stopProblems: string[] = [];
  if (midStream) {
    const nth = Number(midStream[1]);
    reached = await waitFor(() => t.llm.calls.length >= callsFrom + nth || ended(), deadline);
    reached = reached && t.llm.calls.length >= callsFrom + nth;
    if (reached) {
      const startedAt = t.llm.calls[callsFrom + nth - 1]!.startedAt;
      // A few words streamed and shown to the reader, then the cut.
      await waitFor(() => lastMessageAt > startedAt + 400, Date.now() + 5_000);
      stopProblems = await stopAndRestart(t, spec, true);
    }
  } else if (spec.point) {
    reached = await waitFor(() => hasFired(t.controlDir, spec.caseId) || ended(), deadline);
    reached = hasFired(t.controlDir, spec.caseId);
    if (reached) stopProblems = await stopAndRestart(t, spec, false);
  }
  const followed = await follow;
  disarm(t.controlDir);
  pacer.nth = 0;

  const run = await callApi(t, `/api/v1/runs/${runId}`, { method: 'GET' }, (s) => s === 200, Date.now() + 60_000);
  // A run that never ended has no whole stream to replay (a reader would wait forever).
  const replayEvents = followed.done ? await replayOf(t, runId) : [];
  return {
    runId,
    status: String(run.body.status),
    content: String((run.body.result as { content?: unknown } | null)?.content ?? ''),
    calls: t.llm.calls.slice(callsFrom),
    webCalls: t.web.calls.slice(webFrom),
    followed,
    log: await storedLog(t.databaseUrl, runId),
    replayIds: replayEvents.map((e) => e.id),
    replayText: replayEvents
      .filter((e) => e.event === 'message')
      .map((e) => e.content)
      .join(''),
    sessionHeld: await sessionHeld(t.databaseUrl, sessionId),
    workflowStatus: await workflowStatusOf(t, String(run.body.workflow_id)),
    answers,
    reached,
    traced: tracedPoints(t.controlDir, spec.caseId),
    stopProblems,
  };
}

async function workflowStatusOf(t: Topology, workflowId: string): Promise<string> {
  const connection = await Connection.connect({ address: t.temporalAddress });
  try {
    return (await new Client({ connection }).workflow.getHandle(workflowId).describe()).status.name;
  } catch (err) {
    return `unknown (${err instanceof Error ? err.message : String(err)})`;
  } finally {
    await connection.close();
  }
}

/** The whole stream as a reader that connects after the end gets it. */
async function replayOf(t: Topology, runId: string): Promise<Array<{ id: string; event: string; content: string }>> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const res = await fetch(`${t.api.base}/api/v1/runs/${runId}/events`, { headers: t.auth, signal: AbortSignal.timeout(15_000) });
      const text = await res.text();
      if (res.status === 200 && text.includes('[DONE]'))
        return parseSse(text)
          .filter((m) => m.id && m.json)
          .map((m) => ({
            id: m.id!,
            event: String(m.json!.event),
            content: String((m.json!.data as { content?: unknown } | undefined)?.content ?? ''),
          }));
    } catch {
      // the API is being restarted
    }
    await sleep(500);
  }
  return [];
}
