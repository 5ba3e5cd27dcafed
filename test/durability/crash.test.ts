/**
 * Durability: the process running the API and the worker is SIGKILLed while a model answer
 * streams. After a restart on the same data folder the run finishes, the model call that had
 * finished before the crash is not made again, and the status route reports the run finished.
 */
import { describe, expect, it } from 'vitest';
import { parseSse, streamSse, type SseMessage } from '../helpers/appHarness';
import { appProcessSuite } from '../helpers/appProcessSuite';
import { dsl } from '../helpers/canvasKit';

const app = appProcessSuite('crash');

describe('a crash of the API + worker process', () => {
  it('resumes the run after a restart without repeating the finished model call', async () => {
    const env = app.env();
    const { base, auth, llm } = app;
    llm.whenPromptIncludes('First step.', { content: 'facts gathered' });
    llm.whenPromptIncludes('Second step.', { content: Array.from({ length: 60 }, (_, i) => `w${i}`).join(' '), delayMs: 60 });

    const child = await app.start(env);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:first'] },
      'LLM:first': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'First step.' }, downstream: ['LLM:second'] },
      'LLM:second': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Second step. Use {LLM:first@content}.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:second@content}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'crash test', dsl: canvas }) })
    ).json()) as { data: { id: string } };

    // Stream until the second model is well into its answer, then kill the process.
    const before = await streamSse(
      `${base}/api/v1/agents/chat/completions`,
      { method: 'POST', headers: auth, body: JSON.stringify({ agent_id: created.data.id, query: 'go', stream: true }) },
      (m) => (m.json?.event === 'message' ? String((m.json.data as { content: string }).content).includes('w5') : false),
    );
    const runId = String(before.at(-1)!.json!.task_id);
    await child.kill();

    await app.start(env);
    const after: SseMessage[] = await streamSse(
      `${base}/api/v1/runs/${runId}/events`,
      { headers: { ...auth, 'last-event-id': before.at(-1)!.id! } },
      () => false,
    );
    expect(after.at(-1)!.data).toBe('[DONE]');
    expect(after.filter((m) => m.json).map((m) => m.json!.event)).toContain('workflow_finished');

    const status = (await (await fetch(`${base}/api/v1/runs/${runId}`, { headers: auth })).json()) as { status: string; path: string[] };
    expect(status.status).toBe('finished');
    expect(status.path).toEqual(['begin', 'LLM:first', 'LLM:second', 'Message:out']);

    const calls = (needle: string) => llm.calls.filter((c) => c.body.messages.some((m) => String(m.content).includes(needle))).length;
    expect(calls('First step.')).toBe(1);
    // The interrupted call is made again: once, or more when a loaded machine lets a heartbeat of
    // the restarted attempt miss this process's 2 s heartbeat timeout (appProcess.ts).
    expect(calls('Second step.')).toBeGreaterThanOrEqual(2);

    // The full log ends with the complete answer: the retry replaced the interrupted stream.
    const all = parseSse(await (await fetch(`${base}/api/v1/runs/${runId}/events`, { headers: auth })).text());
    const finished = all.find((m) => m.json?.event === 'workflow_finished')!.json!.data as { outputs: { content: string } };
    expect(finished.outputs.content).toBe(Array.from({ length: 60 }, (_, i) => `w${i}`).join(' '));
    const shownAfterRetry = all
      .filter((m) => m.json?.event === 'message')
      .map((m) => (m.json!.data as { content: string }).content)
      .join('');
    expect(shownAfterRetry).toBe(finished.outputs.content);
  }, 240_000);
});
