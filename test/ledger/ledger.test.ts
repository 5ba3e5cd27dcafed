/**
 * The cost ledger and budgets over HTTP, against the scripted model: every model call is recorded
 * with the provider's usage and its cost at MODEL_PRICES, `GET /api/v1/usage` sums them per node,
 * run, session and day, and a budget stops a run before the model call that would exceed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, OTHER_TENANT, parseSse, startHarness, TENANT, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { startWorker } from '../helpers/temporal';
import { launchRun } from '../../api/services/runLauncher';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: {
      MODEL_PRICES: JSON.stringify({ 'priced-model': { input: 2, output: 8 } }),
      // Only the other tenant has a daily budget: tenant A's runs below are bounded by their canvases.
      TENANT_DAILY_BUDGETS: JSON.stringify({ [OTHER_TENANT]: { max_tokens: 500 } }),
    },
  });
}, 120_000);
afterAll(async () => h?.close());

type Envelope = { code: number; message?: string; data?: Record<string, unknown> };
type Usage = {
  group_by: string;
  rows: Array<Record<string, number | string | null>>;
  total: Record<string, number>;
  saved: Record<string, number>;
};

async function createAgent(title: string, body: Record<string, unknown>, key = h.key): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title: `${title} ${Date.now()}`, ...body }, key });
  const payload = res.body as Envelope;
  expect(payload.code, JSON.stringify(payload)).toBe(0);
  return (payload.data as { id: string }).id;
}

/** Runs the agent to its end over the completion stream; its events. */
async function run(agentId: string, key = h.key): Promise<Array<Record<string, unknown>>> {
  const res = await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agentId, query: 'go', stream: true }, key });
  return parseSse(res.text)
    .filter((m) => m.json)
    .map((m) => m.json!);
}

async function usage(query: string, key = h.key): Promise<Usage> {
  const res = await api(h, 'GET', `/api/v1/usage?${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body as Usage;
}

const twoModels = (extra: Record<string, unknown> = {}) =>
  dsl(
    {
      begin: { name: 'Begin', downstream: ['LLM:first'] },
      'LLM:first': { name: 'LLM', params: { llm_id: 'priced-model@OpenAI', sys_prompt: 'Ledger first.' }, downstream: ['LLM:second'] },
      'LLM:second': { name: 'LLM', params: { llm_id: 'free-model@OpenAI', sys_prompt: 'Ledger second.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:first@content} {LLM:second@content}'] } },
    },
    extra,
  );

describe('the cost ledger', () => {
  it('records every model call with the provider’s usage, priced by MODEL_PRICES, and sums them per node, run, session and day', async () => {
    h.llm.whenPromptIncludes('Ledger first.', { content: 'one', usage: { prompt_tokens: 120, completion_tokens: 30 } });
    h.llm.whenPromptIncludes('Ledger second.', { content: 'two', usage: { prompt_tokens: 200, completion_tokens: 45 } });
    const agentId = await createAgent('ledger', { dsl: twoModels() });
    const sentBefore = h.llm.usageSent.length;
    const events = await run(agentId);
    expect(events.at(-1)!.event).toBe('workflow_finished');
    const runId = String(events[0]!.task_id);
    const sessionId = String(events[0]!.session_id);
    const sent = h.llm.usageSent.slice(sentBefore);
    expect(sent.map((u) => u.model).sort()).toEqual(['free-model', 'priced-model']);

    const byNode = await usage(`group_by=node&run_id=${runId}`);
    const node = (id: string) => byNode.rows.find((r) => r.key === id)!;
    expect(node('LLM:first')).toMatchObject({ calls: 1, prompt_tokens: 120, completion_tokens: 30, unpriced_calls: 0, retries: 0 });
    expect(node('LLM:second')).toMatchObject({ calls: 1, prompt_tokens: 200, completion_tokens: 45, cost: 0, unpriced_calls: 1 });
    // The priced model: (120 × 2 + 30 × 8) per 1M tokens.
    expect(node('LLM:first').cost).toBeCloseTo((120 * 2 + 30 * 8) / 1e6, 12);
    // The ledger's sums are what the model server reported, call for call.
    expect(byNode.total.prompt_tokens).toBe(sent.reduce((n, u) => n + u.prompt_tokens, 0));
    expect(byNode.total.completion_tokens).toBe(sent.reduce((n, u) => n + u.completion_tokens, 0));
    expect(byNode.total.total_tokens).toBe(395);

    const bySession = await usage('group_by=session');
    expect(bySession.rows.find((r) => r.key === sessionId)).toMatchObject({ calls: 2, total_tokens: 395 });
    const byRun = await usage('group_by=run');
    expect(byRun.rows.find((r) => r.key === runId)).toMatchObject({ calls: 2, total_tokens: 395 });
    const today = new Date().toISOString().slice(0, 10);
    const byDay = await usage(`group_by=day&from=${today}&to=${today}`);
    expect(byDay.rows.map((r) => r.key)).toEqual([today]);
    expect(Number(byDay.rows[0]!.total_tokens)).toBeGreaterThanOrEqual(395);
    // The run's workflow carries its tenant as fairness key on the task queue.
    const described = await h.temporal.client.workflow.getHandle(String((await h.store.runs.get(TENANT, runId))!.workflow_id)).describe();
    expect(described.raw.workflowExecutionInfo?.priority?.fairnessKey).toBe(TENANT);
    // Tenant-scoped: the other tenant sees none of it.
    expect((await usage(`group_by=run&run_id=${runId}`, h.otherKey)).total.calls).toBe(0);
  }, 120_000);

  it('retries a 429 after its Retry-After, and records both attempts: the failed one and the retry', async () => {
    let asked = 0;
    h.llm.whenPromptIncludes('Rate limited.', () =>
      ++asked === 1 ? { status: 429, retryAfter: 2 } : { content: 'ok', usage: { prompt_tokens: 7, completion_tokens: 3 } },
    );
    const agentId = await createAgent('retry-after', {
      dsl: dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        // delay_after_error alone would retry after 0.1 s.
        'LLM:a': {
          name: 'LLM',
          params: { llm_id: 'priced-model@OpenAI', sys_prompt: 'Rate limited.', max_retries: 2, delay_after_error: 0.1 },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    });
    const callsBefore = h.llm.calls.length;
    const events = await run(agentId);
    expect(events.at(-1)!.event).toBe('workflow_finished');
    const calls = h.llm.calls.slice(callsBefore);
    expect(calls).toHaveLength(2);
    const waited = calls[1]!.startedAt - calls[0]!.startedAt;
    process.stdout.write(`retry after a 429 with Retry-After: 2 came ${waited} ms later\n`);
    expect(waited).toBeGreaterThanOrEqual(1900);
    const runId = String(events[0]!.task_id);
    expect((await usage(`group_by=run&run_id=${runId}`)).total).toMatchObject({
      calls: 2,
      retries: 1,
      failed_calls: 1,
      prompt_tokens: 7,
      completion_tokens: 3,
    });
  }, 120_000);

  it('refuses a group_by it does not know, naming the parameter', async () => {
    const res = await api(h, 'GET', '/api/v1/usage?group_by=tenant');
    expect(res.status).toBe(400);
    expect(res.text).toContain('group_by');
  });
});

describe('what durability saved', () => {
  it('counts a finished call a replay took from history instead of calling the model again, once, with its recorded tokens', async () => {
    // A worker that keeps no workflow in memory replays each run from its history at every task:
    // the first call's result is replayed (not made again) when the second call's result arrives.
    const worker = await startWorker({ nativeConnection: h.temporal.nativeConnection, store: h.store, llmBaseUrl: h.llm.url, maxCachedWorkflows: 0 });
    try {
      h.llm.whenPromptIncludes('Ledger first.', { content: 'one', usage: { prompt_tokens: 120, completion_tokens: 30 } });
      h.llm.whenPromptIncludes('Ledger second.', { content: 'two', usage: { prompt_tokens: 200, completion_tokens: 45 } });
      const agentId = await createAgent('saved', { dsl: twoModels() });
      const canvas = (await h.store.canvases.get(TENANT, agentId))!;
      const callsBefore = h.llm.calls.length;
      const run = await launchRun(
        { store: h.store, client: h.temporal.client, taskQueue: worker.taskQueue, settings: h.deps.runSettings },
        { tenantId: TENANT, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u', session: null },
      );
      await h.temporal.client.workflow.getHandle(run.workflowId).result();
      expect(h.llm.calls.length - callsBefore).toBe(2);
      // The sink writes after the workflow task: give it a moment.
      let saved = (await usage(`group_by=run&run_id=${run.runId}`)).saved;
      for (let i = 0; i < 50 && saved.calls === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        saved = (await usage(`group_by=run&run_id=${run.runId}`)).saved;
      }
      expect(saved).toEqual({ calls: 1, prompt_tokens: 120, completion_tokens: 30 });
    } finally {
      await worker.stop();
    }
  }, 120_000);
});

describe('budgets', () => {
  it('stop a run before the model call that would exceed the agent’s max_tokens, with run_failed naming the budget', async () => {
    // The first call spends 900 of 1000 tokens; the second one's prompt alone (~250 tokens) does not fit.
    h.llm.whenPromptIncludes('Budget first.', { content: 'spent', usage: { prompt_tokens: 800, completion_tokens: 100 } });
    h.llm.whenPromptIncludes('Budget second.', { content: 'never', usage: { prompt_tokens: 10, completion_tokens: 1 } });
    const agentId = await createAgent('budget', {
      dsl: dsl(
        {
          begin: { name: 'Begin', downstream: ['LLM:first'] },
          'LLM:first': { name: 'LLM', params: { llm_id: 'priced-model@OpenAI', sys_prompt: 'Budget first.' }, downstream: ['LLM:second'] },
          'LLM:second': {
            name: 'LLM',
            // Exception handling does not absorb a budget stop: the run fails all the same.
            params: { llm_id: 'priced-model@OpenAI', sys_prompt: `Budget second. ${'A long instruction. '.repeat(50)}`, exception_method: 'comment' },
            downstream: ['Message:out'],
          },
          'Message:out': { name: 'Message', params: { content: ['{LLM:second@content}'] } },
        },
        { budget: { max_tokens: 1000 } },
      ),
    });
    const callsBefore = h.llm.calls.length;
    const events = await run(agentId);
    const last = events.at(-1)!;
    expect(last.event).toBe('run_failed');
    const error = String((last.data as { error: string }).error);
    expect(error).toContain('BUDGET_EXCEEDED');
    expect(error).toContain('run.max_tokens');
    expect(error).toContain('spent 900 tokens of 1000');
    // Only the first call reached the model.
    const made = h.llm.calls.slice(callsBefore).map((c) => JSON.stringify(c.body.messages));
    expect(made).toHaveLength(1);
    expect(made[0]).toContain('Budget first.');
    const runId = String(events[0]!.task_id);
    expect((await usage(`group_by=node&run_id=${runId}`)).rows.map((r) => r.key)).toEqual(['LLM:first']);
    const row = await h.store.runs.get(TENANT, runId);
    expect(row?.status).toBe('failed');
  }, 120_000);

  it('stop a tenant’s runs for the rest of the day once its daily max_tokens is spent', async () => {
    h.llm.whenPromptIncludes('Daily spend.', { content: 'big', usage: { prompt_tokens: 450, completion_tokens: 100 } });
    const agentId = await createAgent(
      'daily',
      {
        dsl: dsl({
          begin: { name: 'Begin', downstream: ['LLM:a'] },
          'LLM:a': { name: 'LLM', params: { llm_id: 'priced-model@OpenAI', sys_prompt: 'Daily spend.' }, downstream: ['Message:out'] },
          'Message:out': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
        }),
      },
      h.otherKey,
    );
    const first = await run(agentId, h.otherKey);
    expect(first.at(-1)!.event).toBe('workflow_finished');
    const callsBefore = h.llm.calls.length;
    const second = await run(agentId, h.otherKey);
    expect(second.at(-1)!.event).toBe('run_failed');
    expect(String((second.at(-1)!.data as { error: string }).error)).toContain(
      `budget tenant_day.max_tokens exceeded: tenant ${OTHER_TENANT} today (UTC) spent 550 tokens of 500`,
    );
    expect(h.llm.calls.length).toBe(callsBefore);
    // Tenant A has no daily budget: its runs go on.
    const agentA = await createAgent('daily-a', { dsl: twoModels() });
    expect((await run(agentA)).at(-1)!.event).toBe('workflow_finished');
  }, 120_000);
});
