/**
 * A message queued behind a running turn (message_policy enqueue) is stored, not held in the API's
 * memory: the process running the API and the worker is SIGKILLed while the turn runs and the
 * message waits; after a restart on the same data folder the turn finishes and the queued message
 * runs as the session's next turn.
 */
import { describe, expect, it } from 'vitest';
import { appProcessSuite } from '../helpers/appProcessSuite';
import { dsl } from '../helpers/canvasKit';

const app = appProcessSuite('queued-restart');

describe('a queued message across an API restart', () => {
  it('runs as the session’s next turn once the turn it waited for ends, after the restart', async () => {
    const env = app.env();
    const { base, auth, llm } = app;
    let open = () => {};
    const held = new Promise<void>((resolve) => (open = resolve));
    llm.whenPromptIncludes('Queue across restart.', (call) =>
      JSON.stringify(call.body.messages).includes('second') ? { content: 'second answer' } : { until: held, then: { content: 'first answer' } },
    );
    const child = await app.start(env);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Queue across restart.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
    });
    const post = async (path: string, body: unknown) =>
      (await (await fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
    const agent = (await post('/api/v1/agents', { title: 'queued restart', dsl: canvas, message_policy: 'enqueue' })) as { data: { id: string } };
    const session = (await post(`/api/v1/agents/${agent.data.id}/sessions`, {})) as { data: { id: string } };
    const first = (await post('/api/v1/runs', { agent_id: agent.data.id, session_id: session.data.id, query: 'first' })) as { id: string };
    await llm.waitForCalls(1, 60_000);

    const queued = (await post('/api/v1/agents/chat/completions', {
      agent_id: agent.data.id,
      session_id: session.data.id,
      query: 'second',
      stream: false,
    })) as {
      code: number;
      data: { queued: boolean; position: number; task_id: string };
    };
    expect(queued).toMatchObject({ code: 0, data: { queued: true, position: 1 } });
    await child.kill();

    await app.start(env);
    open(); // the first turn's retried model call answers now
    const status = async (id: string) => ((await (await fetch(`${base}/api/v1/runs/${id}`, { headers: auth })).json()) as { status?: string }).status;
    const until = Date.now() + 120_000;
    while ((await status(queued.data.task_id)) !== 'finished') {
      if (Date.now() > until)
        throw new Error(`the queued turn is ${(await status(queued.data.task_id)) ?? 'not recorded'}; the first is ${await status(first.id)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await status(first.id)).toBe('finished');
    const got = (await (await fetch(`${base}/api/v1/agents/${agent.data.id}/sessions/${session.data.id}`, { headers: auth })).json()) as {
      data: { message: Array<{ role: string; content: string }> };
    };
    expect(got.data.message.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['first', 'second']);
    expect(got.data.message.at(-1)).toMatchObject({ role: 'assistant', content: 'second answer' });
  }, 300_000);
});
