/**
 * The OpenAI Python SDK (PyPI) against the OpenAI-compatible routes: a canvas is a model.
 * test/compat/openai_python_flow.py drives non-stream and stream chat completions,
 * models.list()/retrieve(), the typed errors for a bad key (AuthenticationError) and an unknown
 * model (NotFoundError), and RAGFlow's /api/v1/agents_openai/{agent_id} route; every step is one
 * test here. The npm SDK's counterpart: test/api/ragflow-contract/openai.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { ensureVenv, run } from '../helpers/pythonVenv';

const STEPS = ['non_stream', 'stream', 'models_list', 'bad_key', 'unknown_model', 'agents_openai_route'] as const;

interface StepResult {
  step: string;
  ok: boolean;
  detail: string;
}

let h: Harness;
let results = new Map<string, StepResult>();
let output = '';

beforeAll(async () => {
  const [venv, harness] = await Promise.all([ensureVenv({ name: 'openai', packages: ['openai'], minVersion: [3, 9] }), startHarness()]);
  h = harness;
  // An echo canvas: the answer is the question.
  const echo = dsl({
    begin: { name: 'Begin', downstream: ['Message:echo'] },
    'Message:echo': { name: 'Message', params: { content: ['{sys.query}'] } },
  });
  const created = await api(h, 'POST', '/api/v1/agents', { body: { title: `openai python ${Date.now()}`, dsl: echo } });
  expect(created.body, created.text).toMatchObject({ code: 0, data: { id: expect.any(String) } });
  const agentId = (created.body as { data: { id: string } }).data.id;
  try {
    output = await run(venv.python, [path.join(__dirname, 'openai_python_flow.py'), h.base, h.key, agentId], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
    });
  } catch (error) {
    output = error instanceof Error ? error.message : String(error);
  }
  results = new Map(
    output
      .split('\n')
      .filter((l) => l.startsWith('STEP '))
      .map((l) => JSON.parse(l.slice(5)) as StepResult)
      .map((r) => [r.step, r]),
  );
}, 600_000);

afterAll(async () => {
  await h?.close();
});

describe('OpenAI Python SDK (PyPI) against /v1', () => {
  it('runs the OpenAI Python SDK', () => {
    expect(results.get('sdk_version')?.ok, output.slice(-3000)).toBe(true);
  });

  for (const step of STEPS) {
    it(step, () => {
      const result = results.get(step);
      expect(result, `the script reported no "${step}" step:\n${output.slice(-3000)}`).toBeDefined();
      expect(result!.ok, `${step}: ${result!.detail}`).toBe(true);
    });
  }
});
