/**
 * What the chaos run does as a client of the API, written to survive the API processes being
 * SIGKILLed under it: every call goes to a live API process and is retried elsewhere, and the
 * calls that change something are safe to repeat (a run is started in a session of its own and
 * looked up there before trying again; a form answer carries Temporal's update id).
 */
import type { Cluster } from '../../test/helpers/cluster';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The addresses of the API processes up now (all of them when none is: callers retry). */
export function liveApis(cluster: Cluster): string[] {
  const up = cluster.apis.filter((a) => a.app !== null).map((a) => a.base);
  return up.length > 0 ? up : cluster.apis.map((a) => a.base);
}

/** Calls `path` on a live API until it answers one of `accept` (or the deadline passes). */
export async function callApi(
  cluster: Cluster,
  path: string,
  init: RequestInit,
  accept: (status: number) => boolean,
  deadline: number,
): Promise<{ status: number; body: Record<string, unknown> }> {
  for (let attempt = 0; ; attempt++) {
    const bases = liveApis(cluster);
    const base = bases[attempt % bases.length]!;
    try {
      const res = await fetch(`${base}${path}`, { ...init, headers: cluster.auth, signal: AbortSignal.timeout(30_000) });
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (accept(res.status)) return { status: res.status, body };
    } catch {
      // refused or reset: that process is down
    }
    if (Date.now() > deadline) throw new Error(`${init.method ?? 'GET'} ${path}: no acceptable answer before the deadline`);
    await sleep(500);
  }
}

export async function createAgent(cluster: Cluster, title: string, dsl: Record<string, unknown>, deadline: number): Promise<string> {
  const res = await callApi(cluster, '/api/v1/agents', { method: 'POST', body: JSON.stringify({ title, dsl }) }, (s) => s === 200, deadline);
  const data = res.body.data as { id?: string } | undefined;
  if (!data?.id) throw new Error(`creating ${title} failed: ${JSON.stringify(res.body)}`);
  return data.id;
}

/**
 * Whether a run found in its session (not answered by a start) was started: its workflow exists.
 * A row an API recorded before dying ahead of the start never runs (the reconciler fails it):
 * false once Temporal says there is no workflow for it a few seconds after it was recorded.
 */
async function wasStarted(cluster: Cluster, taskId: string, deadline: number): Promise<boolean> {
  for (;;) {
    const run = await callApi(cluster, `/api/v1/runs/${taskId}`, { method: 'GET' }, (s) => s === 200, deadline);
    const started = run.body.workflow_started as boolean | null;
    if (started === true) return true;
    if (started === false && Date.now() - Number(run.body.create_time) > 5000) return false;
    if (Date.now() > deadline) throw new Error(`run ${taskId}: its start was never confirmed`);
    await sleep(500);
  }
}

/**
 * Starts a run in a new session and returns its task id. A start whose answer was lost (the API
 * died after starting it) is found in its session instead of being started twice; a run found
 * there whose workflow was never started (the API died before) is left to the reconciler, and
 * the run is started again in a new session.
 */
export async function startRunOnce(cluster: Cluster, agentId: string, query: string, deadline: number): Promise<string> {
  for (;;) {
    const taskId = await startInNewSession(cluster, agentId, query, deadline);
    if (taskId !== null) return taskId;
  }
}

async function startInNewSession(cluster: Cluster, agentId: string, query: string, deadline: number): Promise<string | null> {
  const session = await callApi(cluster, `/api/v1/agents/${agentId}/sessions`, { method: 'POST', body: '{}' }, (s) => s === 200, deadline);
  const sessionId = (session.body.data as { id: string }).id;
  for (;;) {
    const listed = await callApi(cluster, `/api/v1/runs?session_id=${sessionId}`, { method: 'GET' }, (s) => s === 200, deadline);
    const existing = (listed.body.items as Array<{ task_id: string }> | undefined)?.[0];
    if (existing) return (await wasStarted(cluster, existing.task_id, deadline)) ? existing.task_id : null;
    const started = await callApi(
      cluster,
      '/api/v1/runs',
      { method: 'POST', body: JSON.stringify({ agent_id: agentId, session_id: sessionId, query }) },
      (s) => s === 202 || s === 409,
      deadline,
    );
    if (started.status === 202) return String(started.body.task_id);
    // 409: the session already has the run an earlier attempt started; list it again.
  }
}

/** Answers a paused run's form; true once accepted (a repeat of an accepted answer is deduplicated by Temporal). */
export async function answerForm(cluster: Cluster, runId: string, inputs: Record<string, unknown>, deadline: number): Promise<boolean> {
  for (;;) {
    const res = await callApi(
      cluster,
      `/api/v1/runs/${runId}/inputs`,
      { method: 'POST', body: JSON.stringify({ inputs }) },
      (s) => s === 202 || s === 409 || s === 400,
      deadline,
    );
    if (res.status === 202) return true;
    if (res.status === 400) return false;
    // 409: not paused, yet (its status is written just after the form's event) or any more (an
    // earlier answer got through). A second later the run says which.
    await sleep(1000);
    const run = await callApi(cluster, `/api/v1/runs/${runId}`, { method: 'GET' }, (s) => s === 200, deadline);
    if (run.body.status !== 'paused') return true;
  }
}
