/**
 * Time travel over HTTP (docs/API.md, "Time travel"): a run forked from one of its components
 * reuses what ran before it (no model or tool call is made again) and runs the rest with the
 * edited params; a paused run forks into a run that asks its form again; a fork at an Agent runs
 * only the Agent's rounds; a failed run reruns from its failed component on the fixed canvas.
 * Real dev server, scripted model, the tool a real local HTTP peer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, OTHER_TENANT, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { json, startStandIn, type StandIn } from '../helpers/httpStandIn';
import { createAgent as create, startRun as start, waitFor as wait } from '../helpers/travelKit';

let h: Harness;
let tool: StandIn;
beforeAll(async () => {
  // The tool answers FACT-42, or a 500 on /broken (a run that fails at its tool).
  tool = await startStandIn((req) => (req.path === '/broken' ? json({ error: 'down' }, 500) : json({ fact: 'FACT-42' })));
  h = await startHarness({ env: { NETWORK_ALLOW_HOSTS: new URL(tool.url).host } });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await tool?.stop();
});

const createAgent = (title: string, canvas: Record<string, unknown>) => create(h, title, canvas);
const startRun = (agentId: string, query: string) => start(h, agentId, query);
const waitFor = (taskId: string, statuses: string[]) => wait(h, taskId, statuses);
const prompts = (from: number) => h.llm.calls.slice(from).map((c) => JSON.stringify(c.body.messages));

const PROMPT_C = 'facts: {Invoke:fetch@result} b said: {LLM:b@content}';
const fiveNodes = () =>
  dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': {
      name: 'LLM',
      params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-a', prompts: [{ role: 'user', content: '{sys.query}' }] },
      downstream: ['Invoke:fetch'],
    },
    'Invoke:fetch': { name: 'Invoke', params: { url: `${tool.url}/facts`, method: 'get' }, downstream: ['LLM:b'] },
    'LLM:b': {
      name: 'LLM',
      params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-b a said: {LLM:a@content}', prompts: [{ role: 'user', content: '{sys.query}' }] },
      downstream: ['LLM:c'],
    },
    'LLM:c': {
      name: 'LLM',
      params: { llm_id: 'm@OpenAI', sys_prompt: `MARK-cold ${PROMPT_C}`, prompts: [{ role: 'user', content: '{sys.query}' }] },
      downstream: ['Message:out'],
    },
    'Message:out': { name: 'Message', params: { content: ['{LLM:c@content}'] } },
  });

describe('fork a run from a component', () => {
  it('reuses the upstream outputs, makes only the forked calls, and answers with the edit', async () => {
    h.llm.whenPromptIncludes('MARK-a', { content: 'A-output' });
    h.llm.whenPromptIncludes('MARK-b', { content: 'B-output' });
    h.llm.whenPromptIncludes('MARK-cold', { content: 'old answer' });
    h.llm.whenPromptIncludes('MARK-cnew', { content: 'new answer' });
    const agentId = await createAgent('five nodes', fiveNodes());
    const callsBefore = h.llm.calls.length;
    const source = await startRun(agentId, 'what is the fact?');
    const sourceRun = await waitFor(source, ['finished', 'failed']);
    expect(sourceRun.status, JSON.stringify(sourceRun)).toBe('finished');
    expect(sourceRun.result?.content, JSON.stringify(sourceRun.result)).toBe('old answer');
    expect(h.llm.calls.length - callsBefore).toBe(3);
    const toolRequests = tool.requests.length;

    const callsAtFork = h.llm.calls.length;
    const res = await api(h, 'POST', `/api/v1/runs/${source}/fork`, {
      body: { from: 'LLM:c', params: { 'LLM:c': { sys_prompt: `MARK-cnew ${PROMPT_C}` } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const fork = res.body as { task_id: string; reused: string[]; savings: Record<string, unknown> };
    expect(fork.task_id).not.toBe(source);
    expect([...fork.reused].sort()).toEqual(['Invoke:fetch', 'LLM:a', 'LLM:b', 'begin']);
    expect(fork.savings).toMatchObject({ calls_avoided: 3, model_calls_avoided: 2, tool_calls_avoided: 1 });

    const forked = await waitFor(fork.task_id, ['finished', 'failed']);
    expect(forked.status, JSON.stringify(forked)).toBe('finished');
    expect(forked.result?.content).toBe('new answer');
    // Only the forked component called the model; the tool was not called again.
    const seen = prompts(callsAtFork);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('MARK-cnew');
    // It read the source's recorded outputs.
    expect(seen[0]).toContain('FACT-42');
    expect(seen[0]).toContain('B-output');
    expect(tool.requests.length).toBe(toolRequests);
    expect(forked).toMatchObject({
      forked_from: { task_id: source, component_id: 'LLM:c', kind: 'fork' },
      reused_from: { task_id: source, components: expect.arrayContaining(['LLM:a', 'Invoke:fetch', 'LLM:b']) },
    });
    const saved = (forked.savings as { tokens_saved: { total_tokens: number } }).tokens_saved.total_tokens;
    expect(saved).toBeGreaterThan(0);
    expect(saved).toBeLessThan(sourceRun.result!.usage!.total_tokens);
    // The fork spent only its own call's tokens.
    expect(forked.result!.usage!.total_tokens).toBeLessThan(sourceRun.result!.usage!.total_tokens);

    // The reused outputs are the source's, as recorded just before the forked component.
    const [sourceSnaps, forkSnaps] = await Promise.all([h.store.travel.listSnapshots(source), h.store.travel.listSnapshots(fork.task_id)]);
    const at = sourceSnaps.find((s) => s.components.includes('LLM:c'))!;
    expect(forkSnaps.find((s) => s.components.includes('LLM:c'))?.position).toBe(at.position);
    const [s1, s2] = await Promise.all([h.store.travel.getSnapshot(source, at.position), h.store.travel.getSnapshot(fork.task_id, at.position)]);
    for (const id of ['LLM:a', 'Invoke:fetch', 'LLM:b']) expect(s2!.outputs[id]).toEqual(s1!.outputs[id]);

    // The runs list names where the fork came from.
    const list = (await api(h, 'GET', `/api/v1/runs?canvas_id=${agentId}`)).body as { items: Record<string, unknown>[] };
    expect(list.items.find((i) => i.id === fork.task_id)?.forked_from).toEqual({ task_id: source, component_id: 'LLM:c', kind: 'fork' });
    expect(list.items.find((i) => i.id === source)?.forked_from).toBeUndefined();

    // A fork of the fork, further upstream: it kept the source's snapshots before its start.
    const again = await api(h, 'POST', `/api/v1/runs/${fork.task_id}/fork`, { body: { from: 'LLM:b', inputs: { 'LLM:a@content': 'EDITED-A' } } });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    const callsAtSecond = h.llm.calls.length;
    const second = await waitFor((again.body as { task_id: string }).task_id, ['finished', 'failed']);
    expect(second.status).toBe('finished');
    const secondPrompts = prompts(callsAtSecond);
    expect(secondPrompts).toHaveLength(2);
    expect(secondPrompts[0]).toContain('EDITED-A');
    expect(second.result?.content).toBe('old answer');
  }, 240_000);

  it('refuses bad forks by JSON path, and another tenant’s run as not found', async () => {
    const agentId = await createAgent('five nodes refusals', fiveNodes());
    const source = await startRun(agentId, 'q');
    await waitFor(source, ['finished', 'failed']);
    const fork = (body: unknown, key?: string) => api(h, 'POST', `/api/v1/runs/${source}/fork`, { body, ...(key ? { key } : {}) });

    const unknownComponent = await fork({ from: 'LLM:c', params: { 'LLM:nope': { sys_prompt: 'x' } } });
    expect(unknownComponent.status).toBe(400);
    expect(JSON.stringify(unknownComponent.body)).toContain('$.params[\\"LLM:nope\\"]');

    const badParam = await fork({ from: 'LLM:c', params: { 'LLM:c': { temperature: 'hot' } } });
    expect(badParam.status, JSON.stringify(badParam.body)).toBe(400);
    expect(JSON.stringify(badParam.body)).toContain('$.params[\\"LLM:c\\"]');

    const notAComponent = await fork({ from: 'LLM:zzz' });
    expect(notAComponent.status).toBe(400);
    expect(JSON.stringify(notAComponent.body)).toContain('$.from');

    const badInputs = await fork({ from: 'LLM:b', inputs: { 'LLM:c@content': 'x', plain: 1 } });
    expect(badInputs.status).toBe(400);
    expect(JSON.stringify(badInputs.body)).toContain('$.inputs[\\"plain\\"]');

    const otherTenant = await api(h, 'POST', `/api/v1/runs/${source}/fork`, { body: { from: 'LLM:c' }, key: h.otherKey });
    expect(otherTenant.status).toBe(404);
    expect(OTHER_TENANT).toBeTruthy();
  }, 120_000);
});
