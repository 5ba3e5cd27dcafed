/**
 * Time travel, measured (docs/BENCHMARKS.md, "Time travel"): a 5-node canvas (3 model nodes of
 * ~300 ms each, an HTTP tool, a Message) run in full, then forked at its 4th node, rerun from a
 * failed 4th node, and replayed with another model and tools frozen. Prints calls avoided, tokens
 * saved and wall time against the full run; asserts only what each must not call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { json, startStandIn, type StandIn } from '../helpers/httpStandIn';
import { createAgent, startRun, travel, waitFor } from '../helpers/travelKit';

let h: Harness;
let tool: StandIn;
beforeAll(async () => {
  tool = await startStandIn(() => json({ fact: 'F' }));
  h = await startHarness({ env: { NETWORK_ALLOW_HOSTS: new URL(tool.url).host } });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await tool?.stop();
});

const llm = (id: string, next: string) => ({
  name: 'LLM',
  params: { llm_id: 'm@OpenAI', sys_prompt: `MARK-measure-${id} {sys.query}`, prompts: [{ role: 'user', content: '{sys.query}' }] },
  downstream: [next],
});

describe('time travel, measured', () => {
  it('prints calls avoided, tokens saved and wall time of a fork, a rerun and a replay against the full run', async () => {
    let quotaLeft = true;
    h.llm.when((call) => {
      const text = JSON.stringify(call.body.messages);
      if (!text.includes('MARK-measure-')) return undefined;
      // The 4th node's first call of the "broken" run hits a quota once.
      if (text.includes('MARK-measure-c') && text.includes('broken') && quotaLeft) {
        quotaLeft = false;
        return { status: 400 };
      }
      return { content: `answer of ${call.body.model} to ${call.body.messages.length} messages`, delayMs: 300 };
    });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': llm('a', 'Invoke:t'),
      'Invoke:t': { name: 'Invoke', params: { url: `${tool.url}/t`, method: 'get' }, downstream: ['LLM:b'] },
      'LLM:b': llm('b', 'LLM:c'),
      'LLM:c': llm('c', 'Message:m'),
      'Message:m': { name: 'Message', params: { content: ['{LLM:c@content}'] } },
    });
    const agentId = await createAgent(h, 'measure', canvas);
    const timed = async <T>(f: () => Promise<T>) => {
      const t0 = Date.now();
      const value = await f();
      return { value, ms: Date.now() - t0 };
    };
    const finish = (id: string) => waitFor(h, id, ['finished', 'failed'], 120_000);

    const full = await timed(async () => finish(await startRun(h, agentId, 'full')));
    const source = String(full.value.task_id);
    const fork = await timed(async () => {
      const f = await travel(h, source, 'fork', { from: 'LLM:c', params: { 'LLM:c': { sys_prompt: 'MARK-measure-c edited {sys.query}' } } });
      return { f, run: await finish(f.task_id) };
    });
    const broken = await finish(await startRun(h, agentId, 'broken'));
    expect(broken.status).toBe('failed');
    const rerun = await timed(async () => {
      const f = await travel(h, String(broken.task_id), 'rerun');
      return { f, run: await finish(f.task_id) };
    });
    const toolBefore = tool.requests.length;
    const replay = await timed(async () => {
      const res = await api(h, 'POST', `/api/v1/runs/${source}/replay`, { body: { model_map: { 'm@OpenAI': 'm2@OpenAI' }, tools: 'frozen' } });
      const r = res.body as { task_id: string; savings: { tool_calls_avoided: number } };
      return { r, run: await finish(r.task_id) };
    });
    // An eval of the full run: its replay (other model, tools frozen) inside the eval workflow, then the report.
    const evaluated = await timed(async () => {
      const started = (await api(h, 'POST', '/api/v1/evals', { body: { runs: [source], model_map: { 'm@OpenAI': 'm2@OpenAI' } } })).body as {
        id: string;
        replays: { task_id: string }[];
      };
      for (;;) {
        const got = (await api(h, 'GET', `/api/v1/evals/${started.id}`)).body as { status: string; report?: unknown };
        if (got.status !== 'running') return { got, run: await finish(started.replays[0]!.task_id) };
        await new Promise((r) => setTimeout(r, 150));
      }
    });
    expect([fork.value.run.status, rerun.value.run.status, replay.value.run.status, evaluated.value.run.status]).toEqual([
      'finished',
      'finished',
      'finished',
      'finished',
    ]);
    expect(evaluated.value.got.status).toBe('completed');
    expect(tool.requests.length).toBe(toolBefore);

    const usage = (r: { result: { usage?: { total_tokens: number; calls: number } } | null }) => r.result?.usage ?? { total_tokens: 0, calls: 0 };
    const rows = [
      ['full run', full.ms, usage(full.value).calls, usage(full.value).total_tokens, 0, 0],
      [
        'fork at node 4',
        fork.ms,
        usage(fork.value.run).calls,
        usage(fork.value.run).total_tokens,
        fork.value.f.savings.calls_avoided,
        tokensOf(fork.value.f.savings),
      ],
      [
        'rerun from failed node 4',
        rerun.ms,
        usage(rerun.value.run).calls,
        usage(rerun.value.run).total_tokens,
        rerun.value.f.savings.calls_avoided,
        tokensOf(rerun.value.f.savings),
      ],
      [
        'replay, other model, tools frozen',
        replay.ms,
        usage(replay.value.run).calls,
        usage(replay.value.run).total_tokens,
        replay.value.r.savings.tool_calls_avoided,
        0,
      ],
      // The frozen tool call is the one avoided; the model calls are made again (another model).
      ['replay-eval of the full run (1 run, report)', evaluated.ms, usage(evaluated.value.run).calls, usage(evaluated.value.run).total_tokens, 1, 0],
    ];
    console.log(
      `[travel] | run | wall ms (incl. API and polling) | calls made | tokens spent | calls avoided | tokens saved |\n` +
        rows.map((r) => `[travel] | ${r.join(' | ')} |`).join('\n'),
    );
  }, 300_000);
});

function tokensOf(s: unknown): number {
  return (s as { tokens_saved?: { total_tokens: number } }).tokens_saved?.total_tokens ?? 0;
}
