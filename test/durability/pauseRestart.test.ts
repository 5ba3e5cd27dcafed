/**
 * Durability of a pause: a run waits at a UserFillUp; the API + worker process is SIGKILLed and
 * the Temporal dev server (file persistence) is stopped and started again on the same database.
 * After both restarts the form is answered and the same run carries on to the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { startDevServer, type DevServer } from '../../src/io/temporal/devServer';
import { parseSse } from '../helpers/appHarness';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';

const root = path.resolve(__dirname, '../..');
const KEY = `pause-key-${randomUUID()}`;

let llm: ScriptedLlm;
let dir: string;
let server: DevServer | null = null;
let app: AppProcess | null = null;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-pause-'));
});

afterAll(async () => {
  await app?.kill();
  await server?.stop();
  await llm?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a paused run across restarts', () => {
  it('resumes after the worker and the Temporal server restarted', async () => {
    const cli = await obtainTemporalCli({ projectRoot: root });
    expect(cli, 'the Temporal CLI is needed for a file-persistent dev server').toBeTruthy();
    const temporalPort = await freePort();
    const dbFile = path.join(dir, 'temporal.db');
    const startServer = () => startDevServer({ cliPath: cli!.path, dbFile, port: temporalPort });
    server = await startServer();

    const port = await freePort();
    const env = appEnv({ port, dataDir: path.join(dir, 'data'), apiKey: KEY, llmUrl: llm.url, temporalAddress: server.address });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    llm.whenPromptIncludes('Summarize the approval', (call) => ({
      content: `Approved by ${String(call.body.messages.at(-1)!.content).includes('Ada') ? 'Ada' : 'nobody'}.`,
    }));

    app = startAppProcess(env);
    await waitHealthy(base, app);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['UserFillUp:approve'] },
      'UserFillUp:approve': {
        name: 'UserFillUp',
        params: { tips: 'Who approves?', inputs: { approver: { type: 'line', optional: false } } },
        downstream: ['LLM:sum'],
      },
      'LLM:sum': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'Summarize the approval.', prompts: [{ role: 'user', content: 'Approver: {UserFillUp:approve@approver}' }] },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{LLM:sum@content}'] } },
    });
    const created = (await (
      await fetch(`${base}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'pause across restarts', dsl: canvas }) })
    ).json()) as { data: { id: string } };
    const first = parseSse(
      await (
        await fetch(`${base}/api/v1/agents/chat/completions`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ agent_id: created.data.id, query: 'start', stream: true }),
        })
      ).text(),
    );
    const ask = first.filter((m) => m.json).at(-1)!.json!;
    expect(ask.event).toBe('user_inputs');
    const taskId = String(ask.task_id);

    // Everything goes down: the worker (with the API), then the Temporal server.
    await app.kill();
    await server.stop();
    server = await startServer();
    app = startAppProcess(env);
    await waitHealthy(base, app);

    const status = (await (await fetch(`${base}/api/v1/runs/${taskId}`, { headers: auth })).json()) as { status: string };
    expect(status.status).toBe('paused');
    const submitted = await fetch(`${base}/api/v1/runs/${taskId}/inputs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ inputs: { approver: 'Ada' } }),
    });
    expect(submitted.status).toBe(202);
    const rest = parseSse(await (await fetch(`${base}/api/v1/runs/${taskId}/events`, { headers: auth })).text());
    const events = rest.filter((m) => m.json).map((m) => m.json!);
    expect(events.at(-1)!.event).toBe('workflow_finished');
    expect(
      events
        .filter((e) => e.event === 'message')
        .map((e) => (e.data as { content: string }).content)
        .join(''),
    ).toBe('Approved by Ada.');
    expect(events.filter((e) => e.event === 'workflow_started')).toHaveLength(1);
  }, 240_000);
});
