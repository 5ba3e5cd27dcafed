/**
 * Records the workflow histories the replay test checks (test/fixtures/histories). Run it after a
 * deliberate, versioned change to the workflow:  npx tsx test/replay/record.ts
 * It starts its own Temporal dev server, store and scripted model, runs each scenario and saves
 * the history as JSON.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { silentLogger } from '../../activities/log';
import { launchRun } from '../../api/services/runLauncher';
import { llmSettingsFromEnv } from '../../src/llm/providers';
import { DEFAULT_RUN_SETTINGS } from '../../src/runSettings';
import { openStore } from '../../src/store/store';
import { obtainTemporalCli } from '../../src/temporal/cli';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/searchAttributes';
import { cancelSignal } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm } from '../helpers/scriptedLlm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(root, 'test/fixtures/histories');

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await obtainTemporalCli({ projectRoot: root });
  const env = await TestWorkflowEnvironment.createLocal({ server: { executable: cli ? { type: 'existing-path', path: cli.path } : { type: 'cached-download' }, searchAttributes: [...SEARCH_ATTRIBUTE_KEYS] } });
  const store = await openStore({});
  const llm = await startScriptedLlm();
  const taskQueue = 'record';
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: path.join(root, 'workflows/index.ts'),
    activities: createActivities({ store, llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'x' }), log: silentLogger, heartbeatMs: 200 }),
    maxHeartbeatThrottleInterval: '500 milliseconds',
  });
  const deps = { store, client: env.client, taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
  await store.tenants.ensure('t', 't');
  const model = { llm_id: 'm@OpenAI' };
  llm.whenPromptIncludes('classify user questions', { content: 'refund' });
  llm.whenPromptIncludes('Refunds.', { content: 'Your money is on its way.' });
  let flaky = 0;
  llm.whenPromptIncludes('Flaky.', () => (++flaky === 1 ? { status: 500 } : { content: 'recovered' }));
  llm.whenPromptIncludes('Endless.', { hang: true, content: 'la la ' });

  const scenarios: Record<string, { canvas: Record<string, unknown>; cancel?: boolean }> = {
    'categorize-stream': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Categorize:c'] },
        'Categorize:c': { name: 'Categorize', params: { ...model, category_description: { refund: { description: 'money back', to: ['LLM:r'] }, other: { description: 'else', to: ['Message:o'] } } }, downstream: ['LLM:r', 'Message:o'] },
        'LLM:r': { name: 'LLM', params: { ...model, sys_prompt: 'Refunds.' }, downstream: ['Message:r'] },
        'Message:r': { name: 'Message', params: { content: ['{LLM:r@content}'] } },
        'Message:o': { name: 'Message', params: { content: ['other'] } },
      }),
    },
    'retry-then-succeed': {
      canvas: dsl({ begin: { name: 'Begin', downstream: ['LLM:f'] }, 'LLM:f': { name: 'LLM', params: { ...model, sys_prompt: 'Flaky.', max_retries: 2, delay_after_error: 0.1 }, downstream: ['Switch:s'] }, 'Switch:s': { name: 'Switch', params: { conditions: [{ items: [{ cpn_id: 'LLM:f@content', operator: 'contains', value: 'recover' }], to: ['Message:ok'] }], end_cpn_ids: ['Message:ko'] }, downstream: ['Message:ok', 'Message:ko'] }, 'Message:ok': { name: 'Message', params: { content: ['ok: {LLM:f@content}'] } }, 'Message:ko': { name: 'Message', params: { content: ['ko'] } } }),
    },
    'cancel-mid-stream': {
      canvas: dsl({ begin: { name: 'Begin', downstream: ['LLM:e'] }, 'LLM:e': { name: 'LLM', params: { ...model, sys_prompt: 'Endless.' }, downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['{LLM:e@content}'] } } }),
      cancel: true,
    },
  };

  await worker.runUntil(async () => {
    for (const [name, s] of Object.entries(scenarios)) {
      const canvas = await store.canvases.create({ tenantId: 't', title: name, dsl: s.canvas });
      const run = await launchRun(deps, { tenantId: 't', canvas, sessionId: null, query: 'I want a refund', inputs: null, files: [], userId: 'u', session: null });
      const handle = env.client.workflow.getHandle(run.workflowId);
      if (s.cancel) {
        await llm.waitForCalls(llm.calls.length + 1);
        await new Promise((r) => setTimeout(r, 500));
        await handle.signal(cancelSignal, 'recorded cancel');
      }
      await handle.result();
      // The CLI writes the history in the JSON form `historyFromJSON` reads back.
      const json = execFileSync(cli!.path, ['workflow', 'show', '--workflow-id', run.workflowId, '--address', env.address, '--output', 'json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      writeFileSync(path.join(out, `${name}.json`), json);
      process.stdout.write(`recorded ${name}: ${(JSON.parse(json) as { events: unknown[] }).events.length} events\n`);
    }
  });
  await llm.stop();
  await store.close();
  await env.teardown();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
