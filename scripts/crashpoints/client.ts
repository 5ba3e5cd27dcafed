/**
 * The harness as a client of the API, written to survive the API process being killed under it:
 * every call is retried until it gets an answer it accepts, and the calls that change something
 * are safe to repeat (a form answer carries Temporal's update id; a start is looked up in its
 * session before it is tried again).
 */
import type { Topology } from './topology';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function callApi(
  t: Topology,
  path: string,
  init: RequestInit,
  accept: (status: number) => boolean,
  deadline: number,
): Promise<{ status: number; body: Record<string, unknown> }> {
  for (;;) {
    try {
      const res = await fetch(`${t.api.base}${path}`, { ...init, headers: t.auth, signal: AbortSignal.timeout(30_000) });
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (accept(res.status)) return { status: res.status, body };
    } catch {
      // refused or reset: the API is down (being restarted)
    }
    if (Date.now() > deadline) throw new Error(`${init.method ?? 'GET'} ${path}: no acceptable answer before the deadline`);
    await sleep(300);
  }
}

/** Saves a canvas (`dataflow_canvas`: an ingestion pipeline); answers its id. */
export async function createAgent(t: Topology, title: string, dsl: Record<string, unknown>, deadline: number, category?: 'dataflow_canvas'): Promise<string> {
  const body = JSON.stringify({ title, dsl, ...(category ? { canvas_category: category } : {}) });
  const res = await callApi(t, '/api/v1/agents', { method: 'POST', body }, (s) => s === 200, deadline);
  const id = (res.body.data as { id?: string } | undefined)?.id;
  if (!id) throw new Error(`creating ${title} failed: ${JSON.stringify(res.body)}`);
  return id;
}

/** A dataset whose parser is the pipeline canvas `pipelineId`; answers its id. */
export async function createPipelineDataset(t: Topology, name: string, pipelineId: string, deadline: number): Promise<string> {
  const body = JSON.stringify({ name, parse_type: 2, pipeline_id: pipelineId });
  const res = await callApi(t, '/api/v1/datasets', { method: 'POST', body }, (s) => s === 200, deadline);
  const id = (res.body.data as { id?: string } | undefined)?.id;
  if (!id) throw new Error(`creating dataset ${name} failed: ${JSON.stringify(res.body)}`);
  return id;
}

/** Starts a run in a new session: its task id and the session's. */
export async function startRun(t: Topology, agentId: string, query: unknown, deadline: number): Promise<{ runId: string; sessionId: string }> {
  const session = await callApi(t, `/api/v1/agents/${agentId}/sessions`, { method: 'POST', body: '{}' }, (s) => s === 200, deadline);
  const sessionId = (session.body.data as { id: string }).id;
  for (;;) {
    const listed = await callApi(t, `/api/v1/runs?session_id=${sessionId}`, { method: 'GET' }, (s) => s === 200, deadline);
    const existing = (listed.body.items as Array<{ task_id: string }> | undefined)?.[0];
    if (existing) return { runId: existing.task_id, sessionId };
    const started = await callApi(
      t,
      '/api/v1/runs',
      { method: 'POST', body: JSON.stringify({ agent_id: agentId, session_id: sessionId, query }) },
      (s) => s === 202 || s === 409,
      deadline,
    );
    if (started.status === 202) return { runId: String(started.body.task_id), sessionId };
  }
}

/**
 * Answers a paused run's form as a client does: again until the API confirms it (202), refuses
 * it (4xx other than 409), or says the run no longer waits (409 while its status is not paused).
 * A broken connection confirms nothing, so the answer is sent again (with the same update id the
 * API derives from the pause, Temporal takes it once). Resolves with the statuses it got
 * (0: the connection broke).
 */
export async function answerForm(t: Topology, runId: string, inputs: Record<string, unknown>, deadline: number): Promise<number[]> {
  const got: number[] = [];
  for (;;) {
    let status = 0;
    try {
      const res = await fetch(`${t.api.base}/api/v1/runs/${runId}/inputs`, {
        method: 'POST',
        headers: t.auth,
        body: JSON.stringify({ inputs }),
        signal: AbortSignal.timeout(120_000),
      });
      await res.body?.cancel();
      status = res.status;
    } catch {
      // refused or reset: the API is down or was killed under the request
    }
    got.push(status);
    if (status !== 0 && status < 500 && status !== 409) return got;
    if (Date.now() > deadline) return got;
    await sleep(500);
    if (status === 409) {
      const run = await callApi(t, `/api/v1/runs/${runId}`, { method: 'GET' }, (s) => s === 200, deadline);
      if (run.body.status !== 'paused') return got;
    }
  }
}
