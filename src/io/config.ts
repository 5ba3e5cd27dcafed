/**
 * Configuration from environment variables, checked once at start: a bad value stops the process
 * with a message naming the variable.
 */
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from '../core/runSettings';

const port = (def: number) => z.coerce.number().int().min(1).max(65535).default(def);
const positive = (def: number) => z.coerce.number().positive().default(def);
/** A size limit in bytes; below 1 KiB nothing useful fits. */
const byteSize = (def: number) => z.coerce.number().int().min(1024).default(def);

const EnvSchema = z.object({
  PORT: port(9380),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().optional(),
  API_KEY: z.string().min(8, 'must be at least 8 characters').optional(),
  // Keys the HMAC API keys are stored under; without it, one kept in DATA_DIR/api-key-secret.
  API_KEY_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)').optional(),
  DEFAULT_TENANT_ID: z.string().min(1).default('default'),
  TASK_QUEUE: z.string().min(1).default('agent-canvas'),
  AGENT_CANVAS_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  // Prometheus /metrics of a worker-role process (0: none); the API serves its own on PORT. docs/DEPLOY.md.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  // Loopback port of the Temporal SDK's exporter, appended to /metrics; unset: a free one.
  TEMPORAL_SDK_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  RUN_MAX_PARALLEL: z.coerce.number().int().min(1).max(64).default(DEFAULT_RUN_SETTINGS.maxParallel),
  ACTIVITY_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(DEFAULT_RUN_SETTINGS.heartbeatTimeoutMs),
  COMPONENT_EXEC_TIMEOUT: positive(DEFAULT_RUN_SETTINGS.componentTimeoutS),
  RUN_MAX_STEPS: z.coerce.number().int().min(10).default(DEFAULT_RUN_SETTINGS.maxSteps),
  RUN_CONTINUE_AS_NEW_EVENTS: z.coerce.number().int().min(100).max(50_000).default(DEFAULT_RUN_SETTINGS.continueAsNewAfterEvents),
  // Batch snapshots for time travel (docs/ARCHITECTURE.md, "Time travel"); off: runs cannot be forked.
  RUN_SNAPSHOTS: z.enum(['on', 'off']).default('on'),
  // Runs of one tenant in flight at once; later ones wait their turn (docs/ARCHITECTURE.md, "Provider limits and fairness"). Unset: no cap.
  TENANT_MAX_RUNS: z.coerce.number().int().min(1).max(100_000).optional(),
  MCP_STDIO_COMMANDS: z.string().default(''),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2, 'must be at least 2').default(100),
  // Slots of one worker (server/boot/worker.ts, WORKER_CAPACITY): activities (model streams, tools)
  // at once, workflow tasks at once, local activities at once. Unset: the product's defaults there.
  WORKER_MAX_ACTIVITIES: z.coerce.number().int().min(1).max(100_000).optional(),
  WORKER_MAX_WORKFLOW_TASKS: z.coerce.number().int().min(2, 'must be at least 2').max(10_000).optional(),
  WORKER_MAX_LOCAL_ACTIVITIES: z.coerce.number().int().min(1).max(100_000).optional(),
  // Workflow stack traces (Temporal UI's Stack Trace tab): off, they cost a third of the time a run's activations take (workflows/preloadWithoutStacks.ts).
  WORKER_STACK_TRACES: z.enum(['true', 'false', '1', '0']).default('false'),
  // A workflow bundle built beforehand (bundleWorkflowCode's code, written to a file): the worker
  // loads it instead of bundling workflows/ at every start (seconds of CPU). Unset: bundle now.
  WORKER_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  // Worker Deployment versioning (src/io/temporal/deployment.ts); `npm start` turns it on. The build
  // id defaults to package version + git commit; `manual` leaves promotion to the operator.
  WORKER_VERSIONING: z.enum(['true', 'false', '1', '0']).default('false'),
  WORKER_DEPLOYMENT_NAME: z.string().min(1).default('agent-canvas'),
  WORKER_BUILD_ID: z.string().min(1).optional(),
  WORKER_PROMOTE: z.enum(['auto', 'manual']).default('auto'),
  // How long a stop signal waits for in-flight work (HTTP streams, running activities) before exiting anyway.
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).default(20_000),
  RUN_PAUSE_TIMEOUT: z.coerce.number().positive().optional(),
  TAVILY_BASE_URL: z.url('must be a URL').optional(),
  SEARXNG_BASE_URL: z.url('must be a URL').optional(),
  DUCKDUCKGO_BASE_URL: z.url('must be a URL').optional(),
  DUCKDUCKGO_NEWS_BASE_URL: z.url('must be a URL').optional(),
  // `{lang}` stands for the component's language code (https://{lang}.wikipedia.org).
  WIKIPEDIA_BASE_URL: z
    .string()
    .refine((v) => URL.canParse(v.replaceAll('{lang}', 'en')), 'must be a URL, {lang} allowed')
    .optional(),
  SMTP_ALLOW_INSECURE: z.enum(['true', 'false', '1', '0']).optional(),
  // Hosts, IPs or CIDRs (optionally :port) tools may reach on private networks; parsed by src/io/net.
  NETWORK_ALLOW_HOSTS: z
    .string()
    .default('')
    .refine(
      (v) => v.split(',').every((e) => /^[\sA-Za-z0-9_.:*[\]/-]*$/.test(e)),
      'must be a comma-separated list of host names, IPs or CIDRs (optionally with :port)',
    ),
  // CodeExec's sandbox (src/io/tools/codeExec/limits.ts reads them).
  CODE_EXEC_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).optional(),
  CODE_EXEC_MEMORY_MB: z.coerce.number().int().min(32).max(65_536).optional(),
  CODE_EXEC_MAX_PROCESSES: z.coerce.number().int().min(1).max(4096).optional(),
  CODE_EXEC_MAX_OUTPUT_BYTES: z.coerce.number().int().min(1024).optional(),
  CODE_EXEC_SCRATCH_MB: z.coerce.number().int().min(1).max(65_536).optional(),
  CODE_EXEC_UID: z.coerce.number().int().min(1, 'must not be root (0)').optional(),
  CODE_EXEC_GID: z.coerce.number().int().min(1, 'must not be root (0)').optional(),
  CODE_EXEC_UNSAFE_NO_SANDBOX: z.enum(['true', 'false', '1', '0']).optional(),
  MAX_BODY_BYTES: byteSize(10 * 1024 * 1024),
  // What a run may start with (api/services/runLimits.ts): larger values are refused with a 413 naming the field.
  RUN_MAX_QUERY_BYTES: byteSize(64 * 1024),
  RUN_MAX_INPUTS_BYTES: byteSize(64 * 1024),
  RUN_MAX_FILES_BYTES: byteSize(64 * 1024),
  RUN_MAX_DSL_BYTES: byteSize(1024 * 1024),
  // The run reconciler (api/services/runReconciler.ts): how often it passes, how old a row must be.
  RUN_RECONCILE_INTERVAL_S: z.coerce.number().positive().default(30),
  RUN_RECONCILE_GRACE_S: z.coerce.number().min(0).default(60),
  LOAD_EXAMPLES: z.enum(['true', 'false', '1', '0']).default('true'),
  // Where Retrieval searches chunks (they stay in the store either way): src/io/knowledge/chunkIndex.ts.
  SEARCH_BACKEND: z.enum(['postgres', 'opensearch']).default('postgres'),
  OPENSEARCH_URL: z.url('must be a URL').optional(),
  OPENSEARCH_USERNAME: z.string().optional(),
  OPENSEARCH_PASSWORD: z.string().optional(),
  OPENSEARCH_REFRESH: z.enum(['wait_for', 'true']).default('wait_for'),
  OPENSEARCH_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lower case letters, digits, ".", "_" or "-" (an OpenSearch index name)')
    .default('agent-canvas'),
});

/** Where Retrieval searches chunks: the store itself, or an OpenSearch cluster indexing them. */
export type SearchConfig =
  { backend: 'postgres' } | { backend: 'opensearch'; url: string; username?: string; password?: string; indexPrefix: string; refresh: 'wait_for' | 'true' };

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  apiKey: string | undefined;
  apiKeySecret: string | undefined;
  defaultTenantId: string;
  taskQueue: string;
  role: 'all' | 'api' | 'worker';
  /** Worker role: port of its /metrics listener (0: none). */
  metricsPort: number;
  /** Loopback port of the Temporal SDK's Prometheus exporter; undefined: pick a free one. */
  sdkMetricsPort: number | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  runSettings: RunSettings;
  /** Workflows a worker keeps in memory between tasks; paused runs beyond it leave the worker. */
  workerMaxCachedWorkflows: number;
  /** Slots the worker was told to have (WORKER_MAX_*); an unset one keeps the product's default. */
  workerCapacity: { activities?: number; workflowTasks?: number; localActivities?: number };
  /** The worker's workflows answer the stack-trace query and raise errors with frames. */
  workerStackTraces: boolean;
  /** A prebuilt workflow bundle's path; undefined: bundle workflows/ at start. */
  workerWorkflowBundle: string | undefined;
  /** The worker polls as a Worker Deployment version; null: unversioned. `auto`: it makes itself current unless a newer version is. */
  workerVersioning: { deploymentName: string; buildId: string | undefined; promote: 'auto' | 'manual' } | null;
  /** Bound on a graceful shutdown (drain, then close), ms. */
  shutdownTimeoutMs: number;
  maxBodyBytes: number;
  runInputLimits: { queryBytes: number; inputsBytes: number; filesBytes: number; dslBytes: number };
  reconcile: { intervalMs: number; graceMs: number };
  loadExamples: boolean;
  search: SearchConfig;
  projectRoot: string;
}

export function loadConfig(env: NodeJS.ProcessEnv, projectRoot: string): AppConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.SEARCH_BACKEND === 'opensearch' && !e.OPENSEARCH_URL)
    throw new Error('Invalid configuration:\n  OPENSEARCH_URL: required when SEARCH_BACKEND=opensearch');
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL || undefined,
    dataDir: path.resolve(projectRoot, e.DATA_DIR ?? '.data'),
    apiKey: e.API_KEY,
    apiKeySecret: e.API_KEY_SECRET,
    defaultTenantId: e.DEFAULT_TENANT_ID,
    taskQueue: e.TASK_QUEUE,
    role: e.AGENT_CANVAS_ROLE,
    metricsPort: e.METRICS_PORT,
    sdkMetricsPort: e.TEMPORAL_SDK_METRICS_PORT,
    logLevel: e.LOG_LEVEL,
    runSettings: {
      maxParallel: e.RUN_MAX_PARALLEL,
      heartbeatTimeoutMs: e.ACTIVITY_HEARTBEAT_TIMEOUT_MS,
      componentTimeoutS: e.COMPONENT_EXEC_TIMEOUT,
      infraRetries: DEFAULT_RUN_SETTINGS.infraRetries,
      maxSteps: e.RUN_MAX_STEPS,
      continueAsNewAfterEvents: e.RUN_CONTINUE_AS_NEW_EVENTS,
      pauseTimeoutS: e.RUN_PAUSE_TIMEOUT ?? null,
      ...(e.RUN_SNAPSHOTS === 'off' ? { snapshots: false } : {}),
      ...(e.TENANT_MAX_RUNS ? { tenantMaxRuns: e.TENANT_MAX_RUNS } : {}),
    },
    workerMaxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
    workerCapacity: { activities: e.WORKER_MAX_ACTIVITIES, workflowTasks: e.WORKER_MAX_WORKFLOW_TASKS, localActivities: e.WORKER_MAX_LOCAL_ACTIVITIES },
    workerStackTraces: e.WORKER_STACK_TRACES === 'true' || e.WORKER_STACK_TRACES === '1',
    workerWorkflowBundle: e.WORKER_WORKFLOW_BUNDLE,
    workerVersioning:
      e.WORKER_VERSIONING === 'true' || e.WORKER_VERSIONING === '1'
        ? { deploymentName: e.WORKER_DEPLOYMENT_NAME, buildId: e.WORKER_BUILD_ID, promote: e.WORKER_PROMOTE }
        : null,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    runInputLimits: {
      queryBytes: e.RUN_MAX_QUERY_BYTES,
      inputsBytes: e.RUN_MAX_INPUTS_BYTES,
      filesBytes: e.RUN_MAX_FILES_BYTES,
      dslBytes: e.RUN_MAX_DSL_BYTES,
    },
    reconcile: { intervalMs: e.RUN_RECONCILE_INTERVAL_S * 1000, graceMs: e.RUN_RECONCILE_GRACE_S * 1000 },
    loadExamples: e.LOAD_EXAMPLES === 'true' || e.LOAD_EXAMPLES === '1',
    search:
      e.SEARCH_BACKEND === 'opensearch'
        ? {
            backend: 'opensearch',
            url: e.OPENSEARCH_URL!,
            username: e.OPENSEARCH_USERNAME || undefined,
            password: e.OPENSEARCH_PASSWORD || undefined,
            indexPrefix: e.OPENSEARCH_INDEX_PREFIX,
            refresh: e.OPENSEARCH_REFRESH,
          }
        : { backend: 'postgres' },
    projectRoot,
  };
}
