/** Requests the time travel tests make (test/api/travel*.test.ts): agents, runs, and waiting for a run. */
import { expect } from 'vitest';
import { api, type Harness } from './appHarness';

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };
export type RunView = Record<string, unknown> & {
  status: string;
  finish_time: number | null;
  result: { content?: string; usage?: { total_tokens: number; calls: number } } | null;
};

export async function createAgent(h: Harness, title: string, canvas: Record<string, unknown>): Promise<string> {
  const res = (await api(h, 'POST', '/api/v1/agents', { body: { title: `${title} ${Date.now()}`, dsl: canvas } })).body as Envelope<{ id: string }>;
  expect(res.code, JSON.stringify(res)).toBe(0);
  return res.data.id;
}

export async function startRun(h: Harness, agentId: string, query: string): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return (res.body as { task_id: string }).task_id;
}

/** The run once it is in one of `statuses`: a paused status is the workflow's, an ended one is read once its row is closed. */
export async function waitFor(h: Harness, taskId: string, statuses: string[], timeoutMs = 90_000): Promise<RunView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = (await api(h, 'GET', `/api/v1/runs/${taskId}`)).body as RunView;
    if (statuses.includes(run.status) && (run.status === 'paused' || run.finish_time)) return run;
    if (Date.now() > until) throw new Error(`run ${taskId} is ${run.status}, not ${statuses.join('/')}: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Posts a fork (or `rerun`) of `taskId`; expects 202 and returns the answer. */
export async function travel(h: Harness, taskId: string, route: 'fork' | 'rerun', body?: unknown) {
  const res = await api(h, 'POST', `/api/v1/runs/${taskId}/${route}`, body === undefined ? {} : { body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { task_id: string; reused: string[]; savings: { calls_avoided: number; model_calls_avoided: number; tool_calls_avoided: number } };
}
