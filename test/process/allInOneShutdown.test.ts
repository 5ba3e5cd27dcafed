/**
 * Stopping `npm start` (API + worker in one process) with SIGTERM while a model answer streams:
 * the open SSE stream ends cleanly, the process exits 0 within its shutdown bound without a
 * stack trace, and the run is not lost: the next start finishes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseSse, streamSse } from '../helpers/appHarness';
import { appEnv, freePort, startAppProcess, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { exitOf, UNCLEAN_STOP, waitHealthStatus } from './processControl';

const KEY = `shutdown-key-${randomUUID()}`;
const SHUTDOWN_TIMEOUT_MS = 20_000;
const ANSWER = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');

let llm: ScriptedLlm;
let dataDir: string;
let child: AppProcess | null = null;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-shutdown-'));
});

afterAll(async () => {
  await child?.kill();
  await llm?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SIGTERM to the all-in-one process', () => {
  it('ends the open stream, exits 0 without a stack trace, and the next start finishes the run', async () => {
    const port = await freePort();
    const env = appEnv({
      port,
      dataDir,
      apiKey: KEY,
      llmUrl: llm.url,
      temporalAddress: inject('temporalAddress'),
      extra: { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) },
    });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    llm.whenPromptIncludes('Slow step.', { content: ANSWER, delayMs: 100 });

    child = startAppProcess(env);
    expect(await waitHealthStatus(base, child, 200)).toMatchObject({ status: 200 });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:slow'] },
      'LLM:slow': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Slow step.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:slow@content}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'shutdown test', dsl: canvas }) })
    ).json()) as { data: { id: string } };

    // SIGTERM once the answer is streaming; the stream must then end on its own (not hang, not error).
    const running = child;
    let signalled = false;
    let onSignalled = () => {};
    const sent = new Promise<void>((resolve) => (onSignalled = resolve));
    const streaming = streamSse(
      `${base}/api/v1/agents/chat/completions`,
      { method: 'POST', headers: auth, body: JSON.stringify({ agent_id: created.data.id, query: 'go', stream: true }) },
      (m) => {
        if (!signalled && m.json?.event === 'message' && String((m.json.data as { content: string }).content).includes('w3')) {
          signalled = true;
          running.proc.kill('SIGTERM');
          onSignalled();
        }
      },
    );
    await Promise.race([sent, streaming]);
    expect(signalled).toBe(true);
    const ended = await exitOf(running, SHUTDOWN_TIMEOUT_MS + 15_000);
    console.log(`[shutdown] all-in-one exited ${ended.code} ${ended.ms} ms after SIGTERM`);
    expect({ code: ended.code, signal: ended.signal }).toEqual({ code: 0, signal: null });
    expect(running.output()).not.toMatch(UNCLEAN_STOP);
    const seen = await streaming;
    expect(seen.at(-1)!.data).not.toBe('[DONE]');

    const runId = String(seen.find((m) => m.json?.task_id)!.json!.task_id);
    child = startAppProcess(env);
    expect(await waitHealthStatus(base, child, 200)).toMatchObject({ status: 200 });
    const after = await streamSse(`${base}/api/v1/runs/${runId}/events`, { headers: auth }, () => false);
    expect(after.at(-1)!.data).toBe('[DONE]');
    const status = (await (await fetch(`${base}/api/v1/runs/${runId}`, { headers: auth })).json()) as { status: string };
    expect(status.status).toBe('finished');
    const all = parseSse(await (await fetch(`${base}/api/v1/runs/${runId}/events`, { headers: auth })).text());
    const finished = all.find((m) => m.json?.event === 'workflow_finished')!.json!.data as { outputs: { content: string } };
    expect(finished.outputs.content).toBe(ANSWER);
  }, 600_000);
});
