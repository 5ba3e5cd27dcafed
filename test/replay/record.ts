/**
 * Records the workflow histories the replay gate checks (test/fixtures/histories). Record new
 * scenarios as they are added; keep the old files, they stand for runs already in flight:
 *   npx tsx test/replay/record.ts agent-tools sub-agent   (only these; no names: all)
 * It starts its own Temporal dev server, store, scripted model and web-search stand-in, runs each
 * scenario of test/replay/scenarios/*.ts (one file per area; add yours there) and saves the
 * history as JSON, with a child workflow's history and a continued run's first execution too.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { silentLogger } from '../../src/io/log';
import { launchRun } from '../../api/services/runLauncher';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import { DEFAULT_RUN_SETTINGS } from '../../src/core/runSettings';
import { openStore } from '../../src/io/store/store';
import { obtainTemporalCli } from '../../src/io/temporal/cli';
import { WORKFLOW_BUNDLER_OPTIONS, workflowsPath } from '../../src/io/temporal/bundle';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/core/searchAttributes';
import { cancelSignal, progressQuery, submitInputsUpdate } from '../../workflows/definitions';
import { startScriptedLlm } from '../helpers/scriptedLlm';
import { startWebSearchServer } from '../helpers/webSearchServer';
import type { RecordingContext, Scenario, ScenarioSet } from './scenario';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(root, 'test/fixtures/histories');
const scenarioDir = path.join(root, 'test/replay/scenarios');

async function loadScenarios(ctx: RecordingContext): Promise<Record<string, Scenario>> {
  const all: Record<string, Scenario> = {};
  for (const file of readdirSync(scenarioDir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const set = ((await import(pathToFileURL(path.join(scenarioDir, file)).href)) as { default: ScenarioSet }).default;
    for (const [name, scenario] of Object.entries(set(ctx))) {
      if (all[name]) throw new Error(`scenario ${name} is named twice (second in ${file})`);
      all[name] = scenario;
    }
  }
  return all;
}

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
    bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
    activities: createActivities({
      store,
      llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'x' }),
      log: silentLogger,
      heartbeatMs: 200,
      // TTS_MODEL: only canvases with an auto_play Message speak (the message-auto-play scenario).
      env: { TAVILY_BASE_URL: web.url, TTS_MODEL: 'tts-1@OpenAI', TTS_VOICE: 'nova' },
    }),
    maxHeartbeatThrottleInterval: '500 milliseconds',
  });
  const tenantId = 't';
  await store.tenants.ensure(tenantId, tenantId);
  const ctx: RecordingContext = {
    store,
    client: env.client,
    tenantId,
    llm,
    launch: { store, client: env.client, taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } },
    save: (title, dsl) => store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl }),
  };
  const scenarios = await loadScenarios(ctx);
  const only = process.argv.slice(2);
  const unknown = only.filter((n) => !scenarios[n]);
  if (unknown.length > 0) throw new Error(`no scenario named ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);
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
      process.stdout.write(`recording ${name}…\n`);
      const { workflowId, runId } = 'start' in s ? await s.start(ctx) : await driveCanvasRun(ctx, s);
      const handle = env.client.workflow.getHandle(workflowId);
      await handle.result().catch(() => {}); // a failing run is a scenario too
      const described = await handle.describe();
      const firstRunId = described.raw.workflowExecutionInfo?.firstRunId;
      if (firstRunId && firstRunId !== described.runId) save(`${name}-first-execution`, workflowId, firstRunId);
      save(name, workflowId);
      for (const child of runId ? await store.runs.children(runId) : []) save(`${name}-child`, child.workflow_id);
    }
  });
  await llm.stop();
  await web.stop();
  await store.close();
  await env.teardown();
}

/** Starts the canvas run as the API does and drives it: cancel mid-call, or submit inputs at the pause. */
async function driveCanvasRun(ctx: RecordingContext, s: Exclude<Scenario, { start: unknown }>): Promise<{ workflowId: string; runId: string }> {
  const dsl = typeof s.canvas === 'function' ? await s.canvas(ctx) : s.canvas;
  const canvas = await ctx.save('recorded', dsl);
  const run = await launchRun(
    { ...ctx.launch, settings: { ...ctx.launch.settings, ...s.settings } },
    { tenantId: ctx.tenantId, canvas, sessionId: null, query: s.query ?? 'I want a refund', inputs: null, files: [], userId: 'u', session: null },
  );
  const handle = ctx.client.workflow.getHandle(run.workflowId);
  if (s.cancel) {
    await ctx.llm.waitForCalls(ctx.llm.calls.length + 1);
    await new Promise((r) => setTimeout(r, 500));
    await handle.signal(cancelSignal, 'recorded cancel');
  }
  if (s.inputs) {
    while (!(await handle.query(progressQuery)).pendingInputs) await new Promise((r) => setTimeout(r, 100));
    await handle.executeUpdate(submitInputsUpdate, { args: [{ inputs: s.inputs }] });
  }
  return { workflowId: run.workflowId, runId: run.runId };
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
