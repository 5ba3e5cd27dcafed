/**
 * The current `ragflow-sdk` release (PyPI) against agent-canvas started as `npm start` starts it
 * (server/main.ts in its own process): test/compat/ragflow_sdk_flow.py drives agents, sessions,
 * ask (non-stream and stream), a UserFillUp form answered through ask(inputs=...), datasets,
 * upload, parse, chunks add/update/delete, document download and update, and retrieval; every
 * step is one test here. The venv (.tools/python/ragflow-sdk) is made once from the machine's
 * Python 3.13 (pyenv, or AGENT_CANVAS_PYTHON).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';
import { ensureVenv, run } from '../helpers/pythonVenv';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';

/** Every step the script reports, in order. */
const STEPS = [
  'agent_create',
  'agent_get_update',
  'session_create_list',
  'ask_non_stream',
  'ask_stream',
  'session_history',
  'userfillup_resume',
  'session_delete',
  'dataset_create_list_update',
  'document_upload',
  'document_parse',
  'chunks_list',
  'chunk_add',
  'chunk_update',
  'retrieve',
  'chunk_delete',
  'document_download',
  'document_update',
  'cleanup',
] as const;

interface StepResult {
  step: string;
  ok: boolean;
  detail: string;
}

const KEY = `sdk-key-${randomUUID()}`;
let llm: ScriptedLlm;
let app: AppProcess | null = null;
let dataDir: string;
let results = new Map<string, StepResult>();
let scriptOutput = '';

const canvases = {
  // Begin → LLM → Message: the model's answer streamed as message events.
  llm: dsl({
    begin: { name: 'Begin', downstream: ['LLM:answer'] },
    'LLM:answer': {
      name: 'LLM',
      params: { llm_id: 'scripted@OpenAI', sys_prompt: 'SDK-E2E answer briefly.', prompts: [{ role: 'user', content: '{sys.query}' }] },
      downstream: ['Message:out'],
    },
    'Message:out': { name: 'Message', params: { content: ['{LLM:answer@content}'] } },
  }),
  // Begin → UserFillUp (a form) → Message quoting the answer.
  form: dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
    'UserFillUp:ask': {
      name: 'UserFillUp',
      params: { tips: 'How many?', inputs: { count: { type: 'integer', optional: false } } },
      downstream: ['Message:ok'],
    },
    'Message:ok': { name: 'Message', params: { content: ['You asked for {UserFillUp:ask@count}.'] } },
  }),
};

beforeAll(async () => {
  const [venv, port] = await Promise.all([ensureVenv({ name: 'ragflow-sdk', packages: ['ragflow-sdk'] }), freePort()]);
  llm = await startScriptedLlm();
  // The answer names the question, in one-word pieces (so a stream has several message events).
  llm.whenPromptIncludes('SDK-E2E', (call) => {
    const question = [...call.body.messages].reverse().find((m) => m.role === 'user')?.content;
    return { content: `SCRIPTED: ${typeof question === 'string' ? question : JSON.stringify(question)}`, chunkWords: 1 };
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-sdk-'));
  const base = `http://127.0.0.1:${port}`;
  app = startAppProcess(appEnv({ port, dataDir, apiKey: KEY, llmUrl: llm.url, temporalAddress: inject('temporalAddress') }));
  await waitHealthy(base, app, 240_000);
  const canvasFile = path.join(dataDir, 'canvases.json');
  writeFileSync(canvasFile, JSON.stringify(canvases));
  try {
    scriptOutput = await run(venv.python, [path.join(__dirname, 'ragflow_sdk_flow.py'), base, KEY, canvasFile], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
    });
  } catch (error) {
    scriptOutput = error instanceof Error ? error.message : String(error);
  }
  results = new Map(
    scriptOutput
      .split('\n')
      .filter((l) => l.startsWith('STEP '))
      .map((l) => JSON.parse(l.slice(5)) as StepResult)
      .map((r) => [r.step, r]),
  );
}, 600_000);

afterAll(async () => {
  await app?.kill();
  await llm?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('ragflow-sdk (PyPI) against npm start', () => {
  it('runs the current ragflow-sdk release', () => {
    expect(results.get('sdk_version')?.ok, scriptOutput.slice(-3000)).toBe(true);
  });

  for (const step of STEPS) {
    it(step, () => {
      const result = results.get(step);
      expect(result, `the script reported no "${step}" step:\n${scriptOutput.slice(-3000)}`).toBeDefined();
      expect(result!.ok, `${step}: ${result!.detail}${app ? `\n--- server output (tail) ---\n${app.output().slice(-1500)}` : ''}`).toBe(true);
    });
  }
});
