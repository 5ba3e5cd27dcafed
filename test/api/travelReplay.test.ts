/**
 * Replay with another model, tools frozen (docs/API.md, "Time travel"): the replay's model calls
 * go to the mapped model, its tool calls are answered with the source run's results (the tool
 * servers see no request), a tool call the source never made fails clearly, and the replay's
 * details carry a per-component diff. Real dev server, scripted model, real local tool servers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { json, startStandIn, type StandIn } from '../helpers/httpStandIn';
import { createAgent, startRun, waitFor } from '../helpers/travelKit';
import { startWebSearchServer, type WebSearchServer } from '../helpers/webSearchServer';

let h: Harness;
let tool: StandIn;
let web: WebSearchServer;
beforeAll(async () => {
  [tool, web] = await Promise.all([startStandIn(() => json({ fact: 'FACT-7' })), startWebSearchServer()]);
  h = await startHarness({ env: { NETWORK_ALLOW_HOSTS: new URL(tool.url).host, TAVILY_BASE_URL: web.url } });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await Promise.all([tool?.stop(), web?.stop()]);
});

type Diff = { answers_changed: number; tool_choices_changed: number; nodes: Array<{ component_id: string; answer_changed: boolean; tools_changed: boolean }> };

async function replay(taskId: string, body: unknown) {
  const res = await api(h, 'POST', `/api/v1/runs/${taskId}/replay`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { task_id: string; savings: { tool_calls_avoided: number } };
}

const byModel = (model: string) => h.llm.calls.filter((c) => c.body.model === model);

describe('replay with another model', () => {
  it('answers tool calls from the source with tools frozen: the tool server sees nothing; the diff shows the changed answers', async () => {
    h.llm.when((call) =>
      JSON.stringify(call.body.messages).includes('MARK-rp') ? { content: `${call.body.model} says ${call.body.messages.length}` } : undefined,
    );
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-rp one', prompts: [{ role: 'user', content: '{sys.query}' }] },
        downstream: ['Invoke:fetch'],
      },
      'Invoke:fetch': { name: 'Invoke', params: { url: `${tool.url}/facts`, method: 'get' }, downstream: ['LLM:b'] },
      'LLM:b': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-rp two {Invoke:fetch@result}', prompts: [{ role: 'user', content: '{sys.query}' }] },
        downstream: ['Message:out'],
      },
      'Message:out': { name: 'Message', params: { content: ['{LLM:b@content}'] } },
    });
    const agentId = await createAgent(h, 'replay frozen', canvas);
    const source = await startRun(h, agentId, 'go');
    expect((await waitFor(h, source, ['finished', 'failed'])).result?.content).toBe('m says 2');
    const toolRequests = tool.requests.length;

    const unknownModel = await api(h, 'POST', `/api/v1/runs/${source}/replay`, { body: { model_map: { 'nope@OpenAI': 'm2@OpenAI' }, tools: 'frozen' } });
    expect(unknownModel.status).toBe(400);
    expect(JSON.stringify(unknownModel.body)).toContain('$.model_map[\\"nope@OpenAI\\"]');

    const before = byModel('m2').length;
    const r = await replay(source, { model_map: { 'm@OpenAI': 'm2@OpenAI' }, tools: 'frozen' });
    expect(r.savings.tool_calls_avoided).toBe(1);
    const done = await waitFor(h, r.task_id, ['finished', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.result?.content).toBe('m2 says 2');
    expect(byModel('m2').length - before).toBe(2);
    // The replayed model read the source's tool result; the tool server saw no request.
    expect(JSON.stringify(byModel('m2').at(-1)!.body.messages)).toContain('FACT-7');
    expect(tool.requests.length).toBe(toolRequests);
    const diff = done.diff as Diff;
    expect(done.replay_of).toBe(source);
    expect(diff.answers_changed).toBeGreaterThanOrEqual(2);
    expect(diff.nodes.find((n) => n.component_id === 'Invoke:fetch')).toMatchObject({ answer_changed: false });
  }, 180_000);

  it('fails a tool call the source never made, with tools frozen', async () => {
    const search = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'tvly-secret' } };
    // The source's model answers at once; the replay's model asks for a search first.
    h.llm.when((call) => {
      if (!JSON.stringify(call.body.messages).includes('MARK-extra')) return undefined;
      if (call.body.model === 'm') return { content: 'no search needed' };
      const searched = call.body.messages.some((m) => m.role === 'tool');
      return searched
        ? { content: `after: ${JSON.stringify(call.body.messages.filter((m) => m.role === 'tool'))}` }
        : { toolCalls: [{ id: 'c1', name: 'tavily_search_0', arguments: JSON.stringify({ query: 'temporal' }) }] };
    });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': { name: 'Agent', params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-extra You research.', tools: [search] }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
    const agentId = await createAgent(h, 'replay extra call', canvas);
    const source = await startRun(h, agentId, 'go');
    expect((await waitFor(h, source, ['finished', 'failed'])).result?.content).toBe('no search needed');
    const webCalls = web.calls.length;

    const r = await replay(source, { model_map: { 'm@OpenAI': 'm3@OpenAI' }, tools: 'frozen' });
    const done = await waitFor(h, r.task_id, ['finished', 'failed']);
    // The Agent got the refusal as the tool's answer (as any failed tool call), naming why.
    expect(String(done.result?.content)).toContain('made no toolInvoke call #1 for Agent:a');
    expect(web.calls.length).toBe(webCalls);
    expect((done.diff as Diff).nodes.find((n) => n.component_id === 'Agent:a')).toMatchObject({ answer_changed: true });
  }, 180_000);

  it('evaluates 10 runs with a model map in one workflow: changed answers, token deltas and the judge’s verdicts', async () => {
    h.llm.when((call) => {
      const text = JSON.stringify(call.body.messages);
      if (text.includes('You judge two answers')) return { content: `SAME: both answer ${text.includes('m says') ? 'it' : '?'}` };
      if (!text.includes('MARK-ev')) return undefined;
      return call.body.model === 'm2' ? { content: 'm2 says it', usage: { prompt_tokens: 3, completion_tokens: 1 } } : { content: 'm says it' };
    });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:x'] },
      'LLM:x': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-ev', prompts: [{ role: 'user', content: '{sys.query}' }] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{LLM:x@content}'] } },
    });
    const agentId = await createAgent(h, 'eval', canvas);
    const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => startRun(h, agentId, `question ${i}`)));
    for (const id of runs) expect((await waitFor(h, id, ['finished', 'failed'])).status).toBe('finished');

    const bad = await api(h, 'POST', '/api/v1/evals', { body: { runs: [runs[0], 'nope'], model_map: { 'm@OpenAI': 'm2@OpenAI' } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('$.runs[1]');

    const started = await api(h, 'POST', '/api/v1/evals', { body: { runs, model_map: { 'm@OpenAI': 'm2@OpenAI' }, judge: 'judge@OpenAI', concurrency: 3 } });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const evalId = (started.body as { id: string }).id;
    expect((await api(h, 'GET', `/api/v1/evals/${evalId}`, { key: h.otherKey })).status).toBe(404);
    type Report = { runs: Array<{ answers_changed: number; tokens_before: number; tokens_after: number; judge: string }>; overall: Record<string, number> };
    let report: Report | undefined;
    for (let i = 0; i < 600 && !report; i++) {
      const got = (await api(h, 'GET', `/api/v1/evals/${evalId}`)).body as { status: string; report?: Report };
      report = got.report;
      if (!report) await new Promise((r) => setTimeout(r, 200));
    }
    expect(report!.overall).toMatchObject({ runs: 10, runs_with_changed_answers: 10, answers_changed: 20 });
    expect(report!.overall.tokens_after!).toBeLessThan(report!.overall.tokens_before!);
    for (const r of report!.runs) {
      expect(r.tokens_after).toBe(4);
      expect(r.judge).toMatch(/^SAME/);
    }
    console.log(`[travel] eval of 10 runs: tokens ${report!.overall.tokens_before} before, ${report!.overall.tokens_after} after`);
  }, 300_000);
});
