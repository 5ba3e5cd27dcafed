/**
 * Time travel from the places runs stop and think (docs/API.md, "Time travel"): a run paused at a
 * form forks into a run that asks the form again and takes other answers; a fork at an Agent runs
 * its rounds again and nothing before it; a failed run reruns from the component that failed, on
 * the canvas as fixed since. Real dev server, scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { json, startStandIn, type StandIn } from '../helpers/httpStandIn';
import { createAgent, startRun, travel, waitFor } from '../helpers/travelKit';

let h: Harness;
let tool: StandIn;
beforeAll(async () => {
  tool = await startStandIn(() => json({ fact: 'FIXED' }));
  h = await startHarness({ env: { NETWORK_ALLOW_HOSTS: new URL(tool.url).host } });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await tool?.stop();
});

const prompts = (from: number) => h.llm.calls.slice(from).map((c) => JSON.stringify(c.body.messages));

describe('time travel', () => {
  it('forks a paused run at its form: the fork asks again and answers with the new values', async () => {
    h.llm.whenPromptIncludes('MARK-form-intro', { content: 'INTRO' });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:intro'] },
      'LLM:intro': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-form-intro', prompts: [{ role: 'user', content: '{sys.query}' }] },
        downstream: ['UserFillUp:ask'],
      },
      'UserFillUp:ask': {
        name: 'UserFillUp',
        params: { tips: 'How many?', inputs: { count: { type: 'integer', optional: false } } },
        downstream: ['Message:ok'],
      },
      'Message:ok': { name: 'Message', params: { content: ['{LLM:intro@content}: you asked for {UserFillUp:ask@count}.'] } },
    });
    const agentId = await createAgent(h, 'paused fork', canvas);
    const source = await startRun(h, agentId, 'hello');
    await waitFor(h, source, ['paused']);

    const callsAtFork = h.llm.calls.length;
    const fork = await travel(h, source, 'fork', { from: 'UserFillUp:ask' });
    expect(fork.reused).toContain('LLM:intro');
    const paused = await waitFor(h, fork.task_id, ['paused']);
    expect(paused.pending_inputs).toMatchObject({ component_ids: ['UserFillUp:ask'] });
    const answered = await api(h, 'POST', `/api/v1/runs/${fork.task_id}/inputs`, { body: { inputs: { count: 5 } } });
    expect(answered.status, JSON.stringify(answered.body)).toBe(202);
    const done = await waitFor(h, fork.task_id, ['finished', 'failed']);
    expect(done.result?.content).toBe('INTRO: you asked for 5.');
    expect(h.llm.calls.length).toBe(callsAtFork);

    // The source still waits for its own answer, and takes another one.
    await api(h, 'POST', `/api/v1/runs/${source}/inputs`, { body: { inputs: { count: 2 } } });
    expect((await waitFor(h, source, ['finished', 'failed'])).result?.content).toBe('INTRO: you asked for 2.');
  }, 180_000);

  it('forks at an Agent: the Agent runs again, the model node before it does not', async () => {
    h.llm.whenPromptIncludes('MARK-agent-plan', { content: 'PLAN-1' });
    h.llm.whenPromptIncludes('MARK-agent-do', (call) => ({ content: JSON.stringify(call.body.messages).includes('PLAN-1') ? 'DONE with PLAN-1' : 'no plan' }));
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:plan'] },
      'LLM:plan': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-agent-plan', prompts: [{ role: 'user', content: '{sys.query}' }] },
        downstream: ['Agent:do'],
      },
      'Agent:do': {
        name: 'Agent',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-agent-do follow {LLM:plan@content}', prompts: [{ role: 'user', content: '{sys.query}' }] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:do@content}'] } },
    });
    const agentId = await createAgent(h, 'agent fork', canvas);
    const source = await startRun(h, agentId, 'go');
    expect((await waitFor(h, source, ['finished', 'failed'])).result?.content).toBe('DONE with PLAN-1');

    const callsAtFork = h.llm.calls.length;
    const fork = await travel(h, source, 'fork', { from: 'Agent:do' });
    expect(fork.savings).toMatchObject({ calls_avoided: 1, model_calls_avoided: 1 });
    const done = await waitFor(h, fork.task_id, ['finished', 'failed']);
    expect(done.result?.content).toBe('DONE with PLAN-1');
    const seen = prompts(callsAtFork);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('MARK-agent-do');
  }, 180_000);

  it('reruns a failed run from its failed component on the fixed canvas, without its model call before', async () => {
    h.llm.whenPromptIncludes('MARK-rerun-a', { content: 'A-DONE' });
    const canvasWith = (url: string) =>
      dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': {
          name: 'LLM',
          params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-rerun-a', prompts: [{ role: 'user', content: '{sys.query}' }] },
          downstream: ['Invoke:call'],
        },
        // A loopback target no allow-list names: refused, not retried, so the run fails here.
        'Invoke:call': { name: 'Invoke', params: { url, method: 'get' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content} / {Invoke:call@result}'] } },
      });
    const agentId = await createAgent(h, 'rerun', canvasWith('http://127.0.0.1:9/refused'));
    const source = await startRun(h, agentId, 'go');
    const failed = await waitFor(h, source, ['finished', 'failed']);
    expect(failed.status).toBe('failed');

    const notFailed = await api(h, 'POST', `/api/v1/runs/${source}/rerun`, { key: h.otherKey });
    expect(notFailed.status).toBe(404);

    // The canvas is fixed: Invoke now calls an allowed host.
    const put = await api(h, 'PUT', `/api/v1/agents/${agentId}`, { body: { dsl: canvasWith(`${tool.url}/fixed`) } });
    expect((put.body as { code: number }).code, JSON.stringify(put.body)).toBe(0);

    const callsAtRerun = h.llm.calls.length;
    const rerun = await travel(h, source, 'rerun');
    expect(rerun.reused).toContain('LLM:a');
    const done = await waitFor(h, rerun.task_id, ['finished', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done).toMatchObject({ forked_from: { task_id: source, component_id: 'Invoke:call', kind: 'rerun' } });
    expect(done.result?.content).toBe('A-DONE / {"fact":"FIXED"}');
    expect(h.llm.calls.length).toBe(callsAtRerun);

    // Only a failed run reruns.
    const again = await api(h, 'POST', `/api/v1/runs/${rerun.task_id}/rerun`);
    expect(again.status).toBe(409);
  }, 180_000);
});
