/**
 * Durability of a fork (time travel): the process running the API and the worker is SIGKILLed
 * while the forked component's answer streams. After a restart on the same data folder the fork
 * finishes, the components it reused are never called (before or after the crash), and the
 * source run is untouched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { streamSse } from '../helpers/appHarness';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';

const KEY = `fork-crash-key-${randomUUID()}`;
const SLOW = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');

let llm: ScriptedLlm;
let dataDir: string;
let port: number;
let child: AppProcess | null = null;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-fork-crash-'));
  port = await freePort();
});

afterAll(async () => {
  await child?.kill();
  await llm?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a crash during a fork', () => {
  it('finishes the fork after a restart, never calling the reused components', async () => {
    const env = appEnv({ port, dataDir, apiKey: KEY, llmUrl: llm.url, temporalAddress: inject('temporalAddress') });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const post = async (route: string, body: unknown) => (await fetch(`${base}${route}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json();
    const get = async (route: string) => (await fetch(`${base}${route}`, { headers: auth })).json() as Promise<Record<string, unknown>>;
    llm.whenPromptIncludes('Fork first.', { content: 'facts gathered' });
    llm.whenPromptIncludes('Fork second.', { content: 'short answer' });
    llm.whenPromptIncludes('Fork edited.', { content: SLOW, delayMs: 60 });

    child = startAppProcess(env);
    await waitHealthy(base, child);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:first'] },
      'LLM:first': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Fork first.' }, downstream: ['LLM:second'] },
      'LLM:second': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Fork second. Use {LLM:first@content}.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:second@content}'] } },
    });
    const created = (await post('/api/v1/agents', { title: 'fork crash', dsl: canvas })) as { data: { id: string } };
    const source = (await post('/api/v1/runs', { agent_id: created.data.id, query: 'go' })) as { task_id: string };
    for (let i = 0; i < 600 && (await get(`/api/v1/runs/${source.task_id}`)).finish_time === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await get(`/api/v1/runs/${source.task_id}`)).status).toBe('finished');

    const fork = (await post(`/api/v1/runs/${source.task_id}/fork`, {
      from: 'LLM:second',
      params: { 'LLM:second': { sys_prompt: 'Fork edited. Use {LLM:first@content}.' } },
    })) as { task_id: string };
    expect(fork.task_id).toBeTruthy();
    // Stream the fork until its answer is well under way, then kill the process.
    const before = await streamSse(`${base}/api/v1/runs/${fork.task_id}/events`, { headers: auth }, (m) =>
      m.json?.event === 'message' ? String((m.json.data as { content: string }).content).includes('w5') : false,
    );
    await child.kill();

    child = startAppProcess(env);
    await waitHealthy(base, child);
    const after = await streamSse(`${base}/api/v1/runs/${fork.task_id}/events`, { headers: { ...auth, 'last-event-id': before.at(-1)!.id! } }, () => false);
    expect(after.at(-1)!.data).toBe('[DONE]');
    const status = await get(`/api/v1/runs/${fork.task_id}`);
    expect(status.status).toBe('finished');
    expect((status.result as { content: string }).content).toBe(SLOW);
    expect(status.forked_from).toEqual({ task_id: source.task_id, component_id: 'LLM:second', kind: 'fork' });

    const calls = (needle: string) => llm.calls.filter((c) => c.body.messages.some((m) => String(m.content).includes(needle))).length;
    // The reused component ran once, in the source; the source's own second call was not made again.
    expect(calls('Fork first.')).toBe(1);
    expect(calls('Fork second.')).toBe(1);
    // The interrupted call is made again (once, or more on a loaded machine: see crash.test.ts).
    expect(calls('Fork edited.')).toBeGreaterThanOrEqual(2);
    expect(((await get(`/api/v1/runs/${source.task_id}`)).result as { content: string }).content).toBe('short answer');
  }, 240_000);
});
