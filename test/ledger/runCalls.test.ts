/**
 * A run's model calls over HTTP (`GET /api/v1/runs/{id}/calls`, issue 36): every attempt with the
 * messages sent, the model, its parameters, tokens from the provider's usage, cost and the error of
 * a failed attempt — with secrets redacted (the worker's configured keys, Authorization headers,
 * Bearer tokens, secret-named fields), never stored in workflow history, and another tenant's run
 * a 404. The model is the scripted one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSettled, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { createAgent, startRun } from '../ui/kit';
import type { RunCalls } from '../../api/plugins/runCalls';

/** A key the worker is configured with: it must never show in a trace, wherever a prompt puts it. */
const CONFIGURED_KEY = 'tvly-configured-4f9a8b7c6d5e';
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ';
const FIELD_SECRET = 'pw-0123456789abcdef';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { TAVILY_API_KEY: CONFIGURED_KEY, MODEL_PRICES: JSON.stringify({ 'traced-model': { input: 2, output: 8 } }) } });
}, 120_000);
afterAll(async () => h?.close());

/** The route's own schema's type (api/plugins/runCalls.ts). */
type Calls = RunCalls;

async function finished(runId: string): Promise<void> {
  expect(await runSettled(h, runId)).toBe('finished');
}

describe('GET /api/v1/runs/{id}/calls', () => {
  it('lists each attempt with its messages, model, parameters, tokens, cost and error, secrets redacted; 404 for another tenant', async () => {
    const prompt = `Traced call. Authorization: Bearer ${BEARER} and {"password": "${FIELD_SECRET}"} and the key ${CONFIGURED_KEY}.`;
    let answered = 0;
    h.llm.whenPromptIncludes('Traced call.', () =>
      ++answered === 1
        ? { status: 503, message: 'overloaded, try later' }
        : { content: 'Traced answer.', usage: { prompt_tokens: 120, completion_tokens: 30 } },
    );
    const agentId = await createAgent(
      h,
      'traced',
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:t'] },
        'LLM:t': {
          name: 'LLM',
          params: { llm_id: 'traced-model@OpenAI', sys_prompt: prompt, temperature: 0.3, temperatureEnabled: true, max_retries: 2, delay_after_error: 0.1 },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{LLM:t@content}'] } },
      }),
    );
    const runId = await startRun(h, agentId, { query: 'What is traced?' });
    await finished(runId);

    const res = await api(h, 'GET', `/api/v1/runs/${runId}/calls?node=LLM:t`);
    expect(res.status, res.text).toBe(200);
    const body = res.body as Calls;
    expect(body.calls).toHaveLength(1);
    const [failed, ok] = body.calls[0]!.attempts;
    expect(body.calls[0]!.node_id).toBe('LLM:t');
    expect(failed).toMatchObject({ attempt: 1, outcome: 'failed', response: null, usage: { prompt_tokens: 0, completion_tokens: 0, reported: false } });
    expect(failed!.error).toContain('overloaded, try later');
    expect(ok).toMatchObject({
      attempt: 2,
      outcome: 'ok',
      model: 'traced-model',
      usage: { prompt_tokens: 120, completion_tokens: 30, reported: true },
      priced: true,
      response: { content: 'Traced answer.' },
    });
    expect(ok!.cost).toBeCloseTo((120 * 2 + 30 * 8) / 1e6, 12);
    expect(ok!.first_token_ms).toEqual(expect.any(Number));
    expect(ok!.request.params).toMatchObject({ temperature: 0.3 });
    expect(ok!.request.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(ok!.request.messages[1]!.content).toContain('What is traced?');

    // Redacted: the worker's configured key, the bearer token and the secret field, in every attempt.
    for (const secret of [CONFIGURED_KEY, BEARER, FIELD_SECRET]) expect(res.text).not.toContain(secret);
    const system = ok!.request.messages[0]!.content;
    expect(system).toContain('Authorization: __secret__');
    expect(system).toContain('"password": "__secret__"');
    expect(system).toContain('the key __secret__');

    // The whole run's calls, and the run's workflow history, which never carries the trace.
    expect(((await api(h, 'GET', `/api/v1/runs/${runId}/calls`)).body as Calls).calls).toHaveLength(1);
    const run = (await api(h, 'GET', `/api/v1/runs/${runId}`)).body as { workflow_id: string };
    const history = JSON.stringify(await h.temporal.client.workflow.getHandle(run.workflow_id).fetchHistory());
    expect(history).not.toContain('"first_token_ms"');

    // The timeline draws the node's two attempts, the failed one marked, and the wait before the retry.
    type Timeline = { executions: Array<{ node_id: string; segments: Array<{ kind: string; attempt?: number; outcome?: string }> }> };
    const timeline = (await api(h, 'GET', `/api/v1/runs/${runId}/timeline`)).body as Timeline;
    const bar = timeline.executions.find((x) => x.node_id === 'LLM:t')!;
    expect(bar.segments.filter((g) => g.kind !== 'queue')).toEqual([
      expect.objectContaining({ kind: 'attempt', attempt: 1, outcome: 'failed' }),
      expect.objectContaining({ kind: 'retry_wait', attempt: 2 }),
      expect.objectContaining({ kind: 'attempt', attempt: 2, outcome: 'ok' }),
    ]);

    const other = await api(h, 'GET', `/api/v1/runs/${runId}/calls`, { key: h.otherKey });
    expect(other.status).toBe(404);
    expect((await api(h, 'GET', `/api/v1/runs/${runId}/timeline`, { key: h.otherKey })).status).toBe(404);
  }, 120_000);

  it('is in the OpenAPI document, and refuses an empty node filter naming it', async () => {
    const doc = (await api(h, 'GET', '/api/v1/openapi.json')).body as { paths: Record<string, { get?: { summary?: string } }> };
    expect(doc.paths['/api/v1/runs/{task_id}/calls']?.get?.summary).toContain('model call');
    expect(doc.paths['/api/v1/runs/{task_id}/timeline']?.get?.summary).toContain('Gantt');
    const bad = await api(h, 'GET', '/api/v1/runs/nope/calls?node=');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('node');
  });
});
