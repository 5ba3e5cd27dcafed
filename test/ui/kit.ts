/** What the run view's browser tests share: canvases and runs made over the API, and reading the page. */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { api, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import type { RecordedCall, Reply, ScriptedLlm } from '../helpers/scriptedLlm';

export async function createAgent(h: Harness, title: string, canvas: unknown, key = h.key): Promise<string> {
  const res = (await api(h, 'POST', '/api/v1/agents', { body: { title: `${title} ${Date.now()}`, dsl: canvas }, key })).body as {
    code: number;
    data: { id: string };
  };
  expect(res.code, JSON.stringify(res)).toBe(0);
  return res.data.id;
}

export async function startRun(h: Harness, agentId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/runs', { body: { agent_id: agentId, query: 'go', ...body } });
  expect(res.status, res.text).toBe(202);
  return (res.body as { task_id: string }).task_id;
}

export const nodeState = (page: Page, id: string) => page.locator(`svg.graph [data-node="${id}"]`).getAttribute('data-state');
export const waitNode = (page: Page, id: string, state: string) =>
  page.locator(`svg.graph [data-node="${id}"][data-state="${state}"]`).waitFor({ timeout: 30_000 });
export const runStatus = (page: Page) => page.locator('[data-role=run-status]').textContent();

/** Records, in the page, the order in which nodes first turn `done` (before any page script runs). */
export async function recordDoneOrder(page: Page): Promise<void> {
  await page.addInitScript({
    content: `window.__done = [];
      new MutationObserver((records) => {
        for (const r of records) {
          const id = r.target.getAttribute('data-node');
          if (id && r.target.getAttribute('data-state') === 'done' && !window.__done.includes(id)) window.__done.push(id);
        }
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });`,
  });
}

export const formCanvas = () =>
  dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
    'UserFillUp:ask': {
      name: 'UserFillUp',
      params: { tips: 'How many seats?', inputs: { seats: { name: 'Seats', type: 'integer', optional: false }, note: { type: 'line', optional: true } } },
      downstream: ['Message:ok'],
    },
    'Message:ok': { name: 'Message', params: { content: ['Booked {UserFillUp:ask@seats} seats.'] } },
  });

/** Answers the calls whose messages contain `marker` with `replies`, in order; returns the calls seen. */
export function script(llm: ScriptedLlm, marker: string, replies: Reply[]): RecordedCall[] {
  const seen: RecordedCall[] = [];
  llm.when((call) => {
    if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes(marker))) return undefined;
    seen.push(call);
    return replies[seen.length - 1] ?? { content: `no more scripted replies for ${marker}` };
  });
  return seen;
}
