/**
 * The current `ragflow-sdk` release (PyPI), unmodified, against agent-canvas's memory as
 * `npm start` runs it (server/main.ts in its own process): test/compat/ragflow_sdk_memory_flow.py
 * creates, lists, updates and deletes a memory, adds a turn (its semantic memory extracted by
 * the scripted model), searches it, lists the recent ones, reads one, disables and forgets it.
 * Every step is one test here. The venv is the one test/compat/ragflowSdk.test.ts uses.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { ensureVenv, run } from '../helpers/pythonVenv';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';

const STEPS = [
  'memory_create',
  'memory_list',
  'memory_update',
  'message_add',
  'memory_messages',
  'message_search',
  'message_recent',
  'message_content',
  'message_update',
  'message_forget',
  'memory_delete',
] as const;

interface StepResult {
  step: string;
  ok: boolean;
  detail: string;
}

const KEY = `sdk-memory-key-${randomUUID()}`;
let llm: ScriptedLlm;
let app: AppProcess | null = null;
let dataDir: string;
let results = new Map<string, StepResult>();
let scriptOutput = '';

beforeAll(async () => {
  const [venv, port] = await Promise.all([ensureVenv({ name: 'ragflow-sdk', packages: ['ragflow-sdk'] }), freePort()]);
  llm = await startScriptedLlm();
  llm.whenPromptIncludes('Memory Extraction Specialist', {
    content: JSON.stringify({ semantic: [{ content: 'Enceladus, a moon of Saturn, has water geysers', valid_at: '', invalid_at: '' }] }),
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-sdk-memory-'));
  const base = `http://127.0.0.1:${port}`;
  app = startAppProcess(appEnv({ port, dataDir, apiKey: KEY, llmUrl: llm.url, temporalAddress: inject('temporalAddress') }));
  await waitHealthy(base, app, 240_000);
  try {
    scriptOutput = await run(venv.python, [path.join(__dirname, 'ragflow_sdk_memory_flow.py'), base, KEY], {
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

describe('ragflow-sdk (PyPI) memory calls against npm start', () => {
  for (const step of STEPS) {
    it(step, () => {
      const result = results.get(step);
      expect(result, `the script reported no "${step}" step:\n${scriptOutput.slice(-3000)}`).toBeDefined();
      expect(result!.ok, `${step}: ${result!.detail}${app ? `\n--- server output (tail) ---\n${app.output().slice(-1500)}` : ''}`).toBe(true);
    });
  }
});
