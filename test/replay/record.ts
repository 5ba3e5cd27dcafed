/**
 * Records the workflow histories the replay test checks (test/fixtures/histories). Record new
 * scenarios as they are added; keep the old files, they stand for runs already in flight:
 *   npx tsx test/replay/record.ts agent-tools sub-agent   (only these; no names: all)
 * It starts its own Temporal dev server, store, scripted model and web-search stand-in, runs each
 * scenario and saves the history as JSON (a sub-agent's child history and the first execution of
 * a continued run too).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { silentLogger } from '../../src/io/log';
import { launchRun } from '../../api/services/runLauncher';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from '../../src/core/runSettings';
import { openStore } from '../../src/io/store/store';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { WORKFLOW_PRELOAD_MODULES, workflowsPath } from '../../src/io/temporal/bundle';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/core/searchAttributes';
import { cancelSignal, progressQuery, submitInputsUpdate } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { DATA_QUERY, dataCanvas } from '../helpers/dataCanvas';
import { startScriptedLlm, type RecordedCall } from '../helpers/scriptedLlm';
import { startWebSearchServer } from '../helpers/webSearchServer';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(root, 'test/fixtures/histories');

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await obtainTemporalCli({ projectRoot: root });
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: cli ? { type: 'existing-path', path: cli.path } : { type: 'cached-download' }, searchAttributes: [...SEARCH_ATTRIBUTE_KEYS] },
  });
  const store = await openStore({});
  const llm = await startScriptedLlm();
  const web = await startWebSearchServer();
  const taskQueue = 'record';
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: workflowsPath(root),
    bundlerOptions: { preloadModules: [...WORKFLOW_PRELOAD_MODULES] },
    activities: createActivities({
      store,
      llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'x' }),
      log: silentLogger,
      heartbeatMs: 200,
      env: { TAVILY_BASE_URL: web.url },
    }),
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
  const toolsDone = (call: RecordedCall) => call.body.messages.filter((m) => m.role === 'tool').length;
  const tc = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });
  llm.whenPromptIncludes('Parallel.', (call) =>
    toolsDone(call) === 0
      ? { toolCalls: [tc('a', 'tavily_search_0', { query: 'x' }), tc('b', 'tavily_extract_1', { urls: ['https://x.test'] })] }
      : { content: 'both done' },
  );
  llm.whenPromptIncludes('Lead.', (call) =>
    toolsDone(call) === 0 ? { toolCalls: [tc('s', 'Helper_0', { user_prompt: 'look it up', reasoning: 'r', context: 'c' })] } : { content: 'lead done' },
  );
  llm.whenPromptIncludes('Helper.', (call) =>
    toolsDone(call) === 0 ? { toolCalls: [tc('h', 'tavily_search_0', { query: 'y' })] } : { content: 'helper done' },
  );
  llm.whenPromptIncludes('Long.', (call) =>
    toolsDone(call) < 6 ? { toolCalls: [tc(`l${toolsDone(call)}`, 'tavily_search_0', { query: 'z' })] } : { content: 'long done' },
  );
  const search = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } };
  const agent = (params: Record<string, unknown>) =>
    dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': { name: 'Agent', params: { ...model, ...params }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });

  const scenarios: Record<
    string,
    { canvas: Record<string, unknown>; cancel?: boolean; inputs?: Record<string, unknown>; query?: unknown; settings?: Partial<RunSettings> }
  > = {
    'categorize-stream': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Categorize:c'] },
        'Categorize:c': {
          name: 'Categorize',
          params: {
            ...model,
            category_description: { refund: { description: 'money back', to: ['LLM:r'] }, other: { description: 'else', to: ['Message:o'] } },
          },
          downstream: ['LLM:r', 'Message:o'],
        },
        'LLM:r': { name: 'LLM', params: { ...model, sys_prompt: 'Refunds.' }, downstream: ['Message:r'] },
        'Message:r': { name: 'Message', params: { content: ['{LLM:r@content}'] } },
        'Message:o': { name: 'Message', params: { content: ['other'] } },
      }),
    },
    'retry-then-succeed': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:f'] },
        'LLM:f': { name: 'LLM', params: { ...model, sys_prompt: 'Flaky.', max_retries: 2, delay_after_error: 0.1 }, downstream: ['Switch:s'] },
        'Switch:s': {
          name: 'Switch',
          params: {
            conditions: [{ items: [{ cpn_id: 'LLM:f@content', operator: 'contains', value: 'recover' }], to: ['Message:ok'] }],
            end_cpn_ids: ['Message:ko'],
          },
          downstream: ['Message:ok', 'Message:ko'],
        },
        'Message:ok': { name: 'Message', params: { content: ['ok: {LLM:f@content}'] } },
        'Message:ko': { name: 'Message', params: { content: ['ko'] } },
      }),
    },
    'cancel-mid-stream': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:e'] },
        'LLM:e': { name: 'LLM', params: { ...model, sys_prompt: 'Endless.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:e@content}'] } },
      }),
      cancel: true,
    },
    'agent-tools': {
      canvas: agent({ sys_prompt: 'Parallel.', tools: [search, { component_name: 'TavilyExtract', name: 'Reader', params: { api_key: 'k' } }] }),
    },
    'sub-agent': {
      canvas: agent({
        sys_prompt: 'Lead.',
        tools: [{ component_name: 'Agent', name: 'Helper', params: { ...model, sys_prompt: 'Helper.', tools: [search] } }],
      }),
    },
    'user-fill-up': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['UserFillUp:f'] },
        'UserFillUp:f': { name: 'UserFillUp', params: { tips: 'Name?', inputs: { name: { type: 'line' } } }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['Hello {UserFillUp:f@name}'] } },
      }),
      inputs: { name: 'Ada' },
    },
    'iteration-and-loop': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['Iteration:it'] },
        'Iteration:it': { name: 'Iteration', params: { items_ref: 'sys.query', outputs: { out: { ref: 'LLM:b@content' } } }, downstream: ['Loop:l'] },
        'IterationItem:i': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:b'] },
        'LLM:b': { name: 'LLM', parent_id: 'Iteration:it', params: { ...model, sys_prompt: 'Refunds.' } },
        'Loop:l': {
          name: 'Loop',
          params: { loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }], maximum_loop_count: 3 },
          downstream: ['Message:m'],
        },
        'LoopItem:li': { name: 'LoopItem', parent_id: 'Loop:l', downstream: ['VariableAssigner:v'] },
        'VariableAssigner:v': {
          name: 'VariableAssigner',
          parent_id: 'Loop:l',
          params: { variables: [{ variable: 'Loop:l@n', operator: '+=', parameter: 1 }] },
        },
        'Message:m': { name: 'Message', params: { content: ['{Iteration:it@out} n={Loop:l@n}'] } },
      }),
      query: ['a', 'b'],
    },
    'continue-as-new': { canvas: agent({ sys_prompt: 'Long.', tools: [search], max_rounds: 6 }), settings: { continueAsNewAfterEvents: 30 } },
    // Started by the API, which records workflow_started itself (`announced`): the run's own events begin at 2.
    'announced-start': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { ...model, sys_prompt: 'Announced.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    },
    // The run closed by a local activity inside its last workflow task (FINALIZE_LOCAL_PATCH).
    'finalize-local': {
      canvas: dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { ...model, sys_prompt: 'Announced.' }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    },
    // RAGFlow's data components (StringTransform, ListOperations, DataOperations), inline.
    'data-components': { canvas: dataCanvas(), query: DATA_QUERY },
  };
  const only = process.argv.slice(2);
  const save = (name: string, workflowId: string, runId?: string) => {
    // The CLI writes the history in the JSON form `historyFromJSON` reads back.
    const json = execFileSync(
      cli!.path,
      ['workflow', 'show', '--workflow-id', workflowId, ...(runId ? ['--run-id', runId] : []), '--address', env.address, '--output', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    writeFileSync(path.join(out, `${name}.json`), json);
    process.stdout.write(`recorded ${name}: ${(JSON.parse(json) as { events: unknown[] }).events.length} events\n`);
  };

  await worker.runUntil(async () => {
    for (const [name, s] of Object.entries(scenarios)) {
      if (only.length > 0 && !only.includes(name)) continue;
      const canvas = await store.canvases.create({ tenantId: 't', title: name, dsl: s.canvas });
      const run = await launchRun(
        { ...deps, settings: { ...deps.settings, ...s.settings } },
        { tenantId: 't', canvas, sessionId: null, query: s.query ?? 'I want a refund', inputs: null, files: [], userId: 'u', session: null },
      );
      const handle = env.client.workflow.getHandle(run.workflowId);
      if (s.cancel) {
        await llm.waitForCalls(llm.calls.length + 1);
        await new Promise((r) => setTimeout(r, 500));
        await handle.signal(cancelSignal, 'recorded cancel');
      }
      if (s.inputs) {
        while (!(await handle.query(progressQuery)).pendingInputs) await new Promise((r) => setTimeout(r, 100));
        await handle.executeUpdate(submitInputsUpdate, { args: [{ inputs: s.inputs }] });
      }
      await handle.result();
      const described = await handle.describe();
      const firstRunId = described.raw.workflowExecutionInfo?.firstRunId;
      if (firstRunId && firstRunId !== described.runId) save(`${name}-first-execution`, run.workflowId, firstRunId);
      save(name, run.workflowId);
      for (const child of await store.runs.children(run.runId)) save(`${name}-child`, child.workflow_id);
    }
  });
  await llm.stop();
  await web.stop();
  await store.close();
  await env.teardown();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
