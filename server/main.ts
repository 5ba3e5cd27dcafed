/**
 * The entry point `npm start` runs: store, Temporal (a dev server with file persistence unless
 * TEMPORAL_ADDRESS is set), the worker and the API in one process. `AGENT_CANVAS_ROLE=api` or
 * `worker` runs one half, for deployments that scale them apart.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { mcpPolicyFromEnv } from '../src/io/mcp/connect';
import { McpPool } from '../src/io/mcp/pool';
import { openSearchIndex } from '../src/io/knowledge/openSearchIndex';
import { knowledgeDeps } from '../src/io/knowledge/deps';
import { buildApp } from '../api/app';
import { watchWaitingQueues } from '../api/services/turns/messageQueue';
import { resumeAdmissions } from '../api/services/admission';
import { admissionDeps } from '../api/services/runLauncher';
import { httpLimitsFromEnv } from '../api/httpLimits';
import { startRunReconciler } from '../api/services/runReconciler';
import { DEMO_MODEL_PATH } from '../api/plugins/demoModel';
import { DOCS_PATH } from '../api/plugins/docs';
import { UI_PATH } from '../api/plugins/ui';
import { apiKeyBannerLine, ensureDefaultTenant, loadApiKeySecret, provisionApiKey } from './boot/apiKey';
import { loadExamples, readExamples } from './boot/examples';
import { politeClose } from './boot/httpDrain';
import { onStopSignals, stopWhenLauncherGoes, type ShutdownStep } from './boot/shutdown';
import { createWorker, drainWorker } from './boot/worker';
import { installTemporalRuntime } from './boot/telemetry';
import { startMetricsServer, type MetricsServer } from '../src/io/metrics/exposition';
import { pickFreePort } from '../src/io/temporal/ports';
import { loadConfig } from '../src/io/config';
import { DEMO_LABEL } from '../src/io/llm/demoModel';
import { hasAnyModel, llmSettingsFromEnv, toolCallingTable } from '../src/io/llm/providers';
import { createLogger } from './logger';
import { openStore } from '../src/io/store/store';
import { connectOrStartTemporal } from '../src/io/temporal/devServer';
import { promoteVersion, versionString, workerBuildId } from '../src/io/temporal/deployment';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<void> {
  const config = loadConfig(process.env, root);
  const log = createLogger(config.logLevel);
  // The SDK's own metrics exist where a worker runs; /metrics serves them (docs/DEPLOY.md).
  const sdkMetricsPort = config.role === 'api' ? null : (config.sdkMetricsPort ?? (await pickFreePort()));
  installTemporalRuntime({ level: config.logLevel === 'debug' ? 'DEBUG' : 'WARN', sdkMetricsPort });
  const say = (line: string) => process.stderr.write(`${line}\n`);
  await fs.mkdir(config.dataDir, { recursive: true });

  const apiKeySecret = await loadApiKeySecret({ secret: config.apiKeySecret, dataDir: config.dataDir });
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : path.join(config.dataDir, 'pglite'),
    log: (m) => log.info(m),
    apiKeySecret,
  });
  const temporalServer = await connectOrStartTemporal({
    projectRoot: root,
    dataDir: config.dataDir,
    persistent: true,
    ui: true,
    log: (line) => log.info(line),
  });
  let llm = llmSettingsFromEnv(process.env);
  const demo = !hasAnyModel(llm);
  if (demo) llm = { ...llm, gatewayBaseUrl: `http://127.0.0.1:${config.port}${DEMO_MODEL_PATH}`, gatewayApiKey: 'demo', demo: true };

  // The processes serving the API provision its key (a rotation happens here); a worker needs none.
  const key =
    config.role === 'worker'
      ? (await ensureDefaultTenant(store, config.defaultTenantId), null)
      : await provisionApiKey(store, { tenantId: config.defaultTenantId, apiKey: config.apiKey, dataDir: config.dataDir });
  const examples = config.loadExamples ? await loadExamples(store, config.defaultTenantId, root) : [];

  // Which models call tools natively travels with each run (an Agent's `auto` strategy).
  const runSettings = { ...config.runSettings, toolCalling: toolCallingTable(llm) };
  const mcpPool = new McpPool(mcpPolicyFromEnv(process.env));
  // One search backend for both halves: the worker indexes into it, Retrieval and the API search it.
  const search = config.search;
  const chunkIndex =
    search.backend === 'opensearch'
      ? openSearchIndex({ url: search.url, username: search.username, password: search.password, indexPrefix: search.indexPrefix, refresh: search.refresh })
      : undefined;

  // Which Worker Deployment version this process's worker is (docs/ARCHITECTURE.md, "Deploying workflow changes").
  const versioning = config.role !== 'api' ? config.workerVersioning : null;
  const deploymentVersion = versioning ? { deploymentName: versioning.deploymentName, buildId: workerBuildId(root, versioning.buildId) } : null;
  let worker: Worker | null = null;
  let workerConnection: NativeConnection | null = null;
  let workerRun: Promise<void> | null = null;
  if (config.role !== 'api') {
    // Running activities get half the shutdown bound to finish; then they are cancelled and retried elsewhere.
    const shutdownGraceMs = Math.floor(config.shutdownTimeoutMs / 2);
    ({ worker, connection: workerConnection } = await createWorker({
      address: temporalServer.address,
      namespace: temporalServer.namespace,
      taskQueue: config.taskQueue,
      projectRoot: root,
      activities: { store, llm, log, env: process.env, mcpPool, chunkIndex },
      schedules: { settings: runSettings },
      maxCachedWorkflows: config.workerMaxCachedWorkflows,
      capacity: config.workerCapacity,
      stackTraces: config.workerStackTraces,
      ...(config.workerWorkflowBundle ? { workflowBundlePath: config.workerWorkflowBundle } : {}),
      shutdownGraceMs,
      ...(deploymentVersion ? { deployment: { version: deploymentVersion } } : {}),
    }));
    workerRun = worker.run().catch((err: unknown) => {
      log.error('worker stopped', { error: err instanceof Error ? err.stack : String(err) });
      process.exit(1);
    });
  }
  // A worker-role process has no API to carry /metrics: its own listener. One that cannot bind is
  // reported, not fatal: losing metrics must not stop runs.
  let metricsServer: MetricsServer | null = null;
  if (config.role === 'worker' && config.metricsPort > 0) {
    metricsServer = await startMetricsServer({ port: config.metricsPort, host: config.host }).catch((err: unknown) => {
      log.error('metrics listener failed; /metrics is not served', { port: config.metricsPort, error: err instanceof Error ? err.message : String(err) });
      return null;
    });
  }

  // The API's Temporal client, on its own connection even beside a worker. Sharing the worker's
  // NativeConnection would make starts eager (runLauncher.ts) and saves ~20 ms of a lone run's
  // first token, but under a burst every start hands its first workflow task to this process at
  // once: 200 concurrent starts reached their first event at p50 56 s / p95 101 s against 21 / 33 s
  // (bench/starts.ts, PGlite, same load; BENCH_EAGER_START=1 measures it).
  const connection = await Connection.connect({ address: temporalServer.address });
  const client = new Client({ connection, namespace: temporalServer.namespace });
  // New runs reach this version once it is current: made so here (forward only), or by the operator (npm run versions).
  const promotion = deploymentVersion && versioning?.promote === 'auto' ? await promoteVersion(connection, temporalServer.namespace, deploymentVersion) : null;

  const httpLimits = httpLimitsFromEnv(process.env);
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  let closeHttp: (() => Promise<void>) | null = null;
  let reconciler: { stop(): void } | null = null;
  if (config.role !== 'worker') {
    app = await buildApp({
      store,
      temporal: client,
      taskQueue: config.taskQueue,
      runSettings,
      mcp: { policy: mcpPolicyFromEnv(process.env) },
      knowledge: knowledgeDeps(store, process.env, chunkIndex),
      log,
      demoModel: demo,
      bodyLimit: config.maxBodyBytes,
      httpLimits,
      runInputLimits: config.runInputLimits,
      templates: () => readExamples(root),
      temporalUiUrl: temporalServer.uiUrl ?? process.env.TEMPORAL_UI_URL ?? null,
      probes: worker ? { worker: async () => void (worker!.getState() === 'RUNNING' || Promise.reject(new Error(`worker is ${worker!.getState()}`))) } : {},
    });
    closeHttp = politeClose(app);
    await app.listen({ port: config.port, host: config.host, backlog: httpLimits.listenBacklog });
    // Runs stranded by a crash or closed outside our finalize: repaired now and every interval.
    // Messages queued behind a session's turn (message_policy enqueue) are started by a watcher
    // of the API that queued them, and after a restart by one each pass starts; so are runs waiting
    // for their tenant's capacity (TENANT_MAX_RUNS, api/services/admission.ts).
    const queues = { store, client, taskQueue: config.taskQueue, settings: runSettings, limits: config.runInputLimits, log };
    const afterPass = () => Promise.all([watchWaitingQueues(queues), resumeAdmissions(admissionDeps(queues), config.reconcile.graceMs)]);
    reconciler = startRunReconciler({ store, client, log, batch: 100, ...config.reconcile, afterPass });
  }

  const base = `http://127.0.0.1:${config.port}`;
  say('');
  say('agent-canvas is running');
  if (app) {
    say(`  Run view       ${base}${UI_PATH}   (sign in with the API key below)`);
    say(`  API            ${base}/api/v1   (health: ${base}/health)`);
    say(`  OpenAPI        ${base}/api/v1/openapi.json   (browse: ${base}${DOCS_PATH})`);
    say(`  Metrics        ${base}/metrics   (Prometheus, no key${worker ? '; with the Temporal SDK series' : ''})`);
  }
  if (metricsServer) say(`  Metrics        http://127.0.0.1:${metricsServer.port}/metrics`);
  if (deploymentVersion)
    say(`  Worker version ${versionString(deploymentVersion)}   (${promotion ? promotion.action : 'promotion manual'}; list: npm run versions)`);
  say(`  Temporal       ${temporalServer.address}${temporalServer.uiUrl ? `   UI: ${temporalServer.uiUrl}` : ''}`);
  say(`  Store          ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${path.join(config.dataDir, 'pglite')}`}`);
  if (search.backend === 'opensearch') say(`  Search         OpenSearch at ${new URL(search.url).host} (indices ${search.indexPrefix}-chunks-*)`);
  // Never the key itself: this output ends up in container logs.
  if (key) say(`  API key        ${apiKeyBannerLine(key)}`);
  if (demo) say(`  Model          OFFLINE DEMO MODEL ${DEMO_LABEL}`);
  if (examples.length > 0) say(`  Examples       loaded: ${examples.join(', ')}`);
  if (key) say(`  Try            curl -N -H "Authorization: Bearer ${key.file ? `$(cat ${key.file})` : '$API_KEY'}" ${base}/api/v1/agents`);
  say('');

  const step = (name: string, run: (() => Promise<unknown>) | null): ShutdownStep[] => (run ? [{ name, run }] : []);
  const http = closeHttp;
  const stopApi = http
    ? async () => {
        reconciler?.stop();
        await http();
      }
    : null;
  const drainSteps = [...step('the HTTP server', stopApi), ...step('the worker', worker && workerRun ? () => drainWorker(worker!, workerRun!) : null)];
  const stop = onStopSignals(
    {
      // HTTP first (no new runs, streams end), then the worker finishes or hands back what it holds;
      // the other way round when this process serves the demo model the worker's runs are calling.
      drain: demo ? [...drainSteps].reverse() : drainSteps,
      release: [
        ...step('MCP sessions', () => mcpPool.closeAll()),
        ...step('the metrics listener', metricsServer ? () => metricsServer!.close() : null),
        ...step('the search index', chunkIndex ? () => chunkIndex.close() : null),
        ...step('the worker connection', workerConnection ? () => workerConnection!.close() : null),
        ...step('the Temporal connection', () => connection.close()),
        ...step('the store', () => store.close()),
        ...step('the Temporal dev server', () => temporalServer.stop()),
      ],
    },
    { timeoutMs: config.shutdownTimeoutMs, say, exit: (code) => process.exit(code) },
  );
  stopWhenLauncherGoes(stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`agent-canvas failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
