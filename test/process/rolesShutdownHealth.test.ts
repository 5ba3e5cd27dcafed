/**
 * The API and the worker as separate processes (AGENT_CANVAS_ROLE=api / worker) on one
 * PostgreSQL: /health in the API reports 503 naming the missing pollers until a worker polls
 * the task queue, then 200; SIGTERM to the worker while a model answer streams exits 0 without
 * a stack trace, and a new worker finishes the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { streamSse } from '../helpers/appHarness';
import { appEnv, freePort, startAppProcess, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startPostgres, type StartedPostgres } from '../helpers/postgres';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { exitOf, health, UNCLEAN_STOP, waitForOutput, waitHealthStatus } from './processControl';

const KEY = `roles-key-${randomUUID()}`;
const SHUTDOWN_TIMEOUT_MS = 20_000;
const ANSWER = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[roles] separate API and worker processes skipped: they share a PostgreSQL: ${postgres.skipped}`);

let llm: ScriptedLlm;
const dirs: string[] = [];
const processes: AppProcess[] = [];

beforeAll(async () => {
  llm = await startScriptedLlm();
});

afterAll(async () => {
  for (const p of processes) await p.kill();
  await llm?.stop();
  if (!('skipped' in postgres)) await postgres.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.skipIf('skipped' in postgres)('separate API and worker processes', () => {
  it('reports missing pollers until a worker polls, and a SIGTERMed worker hands its run to the next one', async () => {
    const databaseUrl = (postgres as StartedPostgres).url;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const taskQueue = `roles-${randomUUID()}`;
    const envFor = (role: 'api' | 'worker') => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), `agent-canvas-${role}-`));
      dirs.push(dataDir);
      return appEnv({
        port,
        dataDir,
        apiKey: KEY,
        llmUrl: llm.url,
        temporalAddress: inject('temporalAddress'),
        extra: { AGENT_CANVAS_ROLE: role, DATABASE_URL: databaseUrl, TASK_QUEUE: taskQueue, SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) },
      });
    };
    const start = (role: 'api' | 'worker') => {
      const p = startAppProcess(envFor(role));
      processes.push(p);
      return p;
    };
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    llm.whenPromptIncludes('Slow step.', { content: ANSWER, delayMs: 100 });

    const api = start('api');
    const alone = await health(base, api);
    expect(alone.status).toBe(503);
    expect(alone.body.checks).toMatchObject({ store: 'ok', temporal: 'ok' });
    expect(alone.body.checks.pollers).toContain(`no worker polls task queue "${taskQueue}" for workflow or activity tasks`);

    const worker = start('worker');
    await waitForOutput(worker, 'agent-canvas is running');
    const ready = await waitHealthStatus(base, api, 200);
    expect(ready).toMatchObject({ status: 200, body: { status: 'ok', checks: { pollers: 'ok' } } });

    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['LLM:slow'] },
      'LLM:slow': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Slow step.' }, downstream: ['Message:out'] },
      'Message:out': { name: 'Message', params: { content: ['{LLM:slow@content}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'roles test', dsl: canvas }) })
    ).json()) as { data: { id: string } };
    const before = await streamSse(
      `${base}/api/v1/agents/chat/completions`,
      { method: 'POST', headers: auth, body: JSON.stringify({ agent_id: created.data.id, query: 'go', stream: true }) },
      (m) => (m.json?.event === 'message' ? String((m.json.data as { content: string }).content).includes('w3') : false),
    );
    const runId = String(before.find((m) => m.json?.task_id)!.json!.task_id);

    worker.proc.kill('SIGTERM');
    const ended = await exitOf(worker, SHUTDOWN_TIMEOUT_MS + 15_000);
    console.log(`[shutdown] worker exited ${ended.code} ${ended.ms} ms after SIGTERM`);
    expect({ code: ended.code, signal: ended.signal }).toEqual({ code: 0, signal: null });
    expect(worker.output()).not.toMatch(UNCLEAN_STOP);

    start('worker');
    const after = await streamSse(`${base}/api/v1/runs/${runId}/events`, { headers: auth }, () => false);
    expect(after.at(-1)!.data).toBe('[DONE]');
    const status = (await (await fetch(`${base}/api/v1/runs/${runId}`, { headers: auth })).json()) as { status: string };
    expect(status.status).toBe('finished');

    api.proc.kill('SIGTERM');
    const apiEnded = await exitOf(api, SHUTDOWN_TIMEOUT_MS + 15_000);
    expect({ code: apiEnded.code, signal: apiEnded.signal }).toEqual({ code: 0, signal: null });
    expect(api.output()).not.toMatch(UNCLEAN_STOP);
  }, 900_000);
});
