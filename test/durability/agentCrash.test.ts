/**
 * Durability of an agent: the process running the worker is SIGKILLed while the agent is in
 * round 2 of 4 (the scripted model holds that request open). After a restart the run completes,
 * and the call logs of the model and of the web-search API show that nothing finished before the
 * crash ran again: only the model call that was in flight is made twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { streamSse } from '../helpers/appHarness';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../helpers/scriptedLlm';
import { startWebSearchServer, type WebSearchServer } from '../helpers/webSearchServer';

const KEY = `agent-crash-key-${randomUUID()}`;

let llm: ScriptedLlm;
let web: WebSearchServer;
let dataDir: string;
let app: AppProcess | null = null;

beforeAll(async () => {
  [llm, web] = await Promise.all([startScriptedLlm(), startWebSearchServer()]);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-agent-crash-'));
});

afterAll(async () => {
  await app?.kill();
  await Promise.all([llm?.stop(), web?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The agent's round, read from how many tool results the request carries. */
function roundOf(call: RecordedCall): number {
  const tools = call.body.messages.filter((m) => m.role === 'tool').length;
  return tools === 0 ? 1 : tools === 2 ? 2 : tools === 3 ? 3 : 4;
}

const search = (id: string, query: string) => ({ id, name: 'tavily_search_0', arguments: JSON.stringify({ query }) });

describe('a crash of the worker process in the middle of an agent run', () => {
  it('finishes the run after a restart without repeating finished rounds or tool calls', async () => {
    const port = await freePort();
    const env = appEnv({ port, dataDir, apiKey: KEY, llmUrl: llm.url, temporalAddress: inject('temporalAddress'), extra: { TAVILY_BASE_URL: web.url } });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

    let heldOnce = false;
    llm.when((call) => {
      switch (roundOf(call)) {
        case 1:
          return { toolCalls: [search('r1a', 'round one a'), search('r1b', 'round one b')] };
        case 2:
          if (!heldOnce) {
            heldOnce = true;
            // Held open until the worker dies: the call in flight at the crash.
            return { until: new Promise(() => undefined), then: { content: 'never sent' } };
          }
          return { toolCalls: [search('r2', 'round two')] };
        case 3:
          return { toolCalls: [search('r3', 'round three')] };
        default:
          return { content: 'Four rounds of research, one answer.' };
      }
    });

    app = startAppProcess(env);
    await waitHealthy(base, app);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:researcher'] },
      'Agent:researcher': {
        name: 'Agent',
        params: {
          llm_id: 'm@OpenAI',
          sys_prompt: 'You research.',
          max_rounds: 4,
          tools: [{ component_name: 'TavilySearch', name: 'Search', params: { api_key: 'tvly-crash' } }],
        },
        downstream: ['Message:out'],
      },
      'Message:out': { name: 'Message', params: { content: ['{Agent:researcher@content}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'agent crash test', dsl: canvas }) })
    ).json()) as { data: { id: string } };
    // Start streaming, keep the task id, and hang up: the run goes on without a listener.
    const first = await streamSse(
      `${base}/api/v1/agents/chat/completions`,
      { method: 'POST', headers: auth, body: JSON.stringify({ agent_id: created.data.id, query: 'research something', stream: true }) },
      (m) => typeof m.json?.task_id === 'string',
    );
    const runId = String(first.at(-1)!.json!.task_id);

    // Round 1 is done (its model call and both tool calls) and round 2's model call is open.
    await llm.waitForCalls(2, 60_000);
    expect(roundOf(llm.calls[1]!)).toBe(2);
    expect(web.calls.map((c) => c.body.query)).toEqual(expect.arrayContaining(['round one a', 'round one b']));
    await app.kill();

    app = startAppProcess(env);
    await waitHealthy(base, app);
    const until = Date.now() + 120_000;
    let status = '';
    while (Date.now() < until) {
      status = ((await (await fetch(`${base}/api/v1/runs/${runId}`, { headers: auth })).json()) as { status: string }).status;
      if (status === 'finished' || status === 'failed') break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(status).toBe('finished');

    // The model: round 2 (in flight at the crash) twice, every other round once.
    expect(llm.calls.map(roundOf)).toEqual([1, 2, 2, 3, 4]);
    // The web API: each tool call exactly once.
    expect(web.calls.map((c) => c.body.query).sort()).toEqual(['round one a', 'round one b', 'round three', 'round two']);

    const events = await (await fetch(`${base}/api/v1/runs/${runId}/events`, { headers: auth })).text();
    expect(events).toContain('Four rounds of research, one answer.');
  }, 240_000);
});
