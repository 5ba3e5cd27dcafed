/**
 * Configuration from environment variables, checked once at start: a bad value stops the process
 * with a message naming the variable.
 */
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from './runSettings';

const port = (def: number) => z.coerce.number().int().min(1).max(65535).default(def);
const positive = (def: number) => z.coerce.number().positive().default(def);

const EnvSchema = z.object({
  PORT: port(9380),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().optional(),
  API_KEY: z.string().min(8, 'must be at least 8 characters').optional(),
  DEFAULT_TENANT_ID: z.string().min(1).default('default'),
  TASK_QUEUE: z.string().min(1).default('agent-canvas'),
  AGENT_CANVAS_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  RUN_MAX_PARALLEL: z.coerce.number().int().min(1).max(64).default(DEFAULT_RUN_SETTINGS.maxParallel),
  ACTIVITY_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(DEFAULT_RUN_SETTINGS.heartbeatTimeoutMs),
  COMPONENT_EXEC_TIMEOUT: positive(DEFAULT_RUN_SETTINGS.componentTimeoutS),
  RUN_MAX_STEPS: z.coerce.number().int().min(10).default(DEFAULT_RUN_SETTINGS.maxSteps),
  RUN_CONTINUE_AS_NEW_EVENTS: z.coerce.number().int().min(100).max(50_000).default(DEFAULT_RUN_SETTINGS.continueAsNewAfterEvents),
  MCP_STDIO_COMMANDS: z.string().default(''),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2, 'must be at least 2').default(200),
  RUN_PAUSE_TIMEOUT: z.coerce.number().positive().optional(),
  TAVILY_BASE_URL: z.url('must be a URL').optional(),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
  LOAD_EXAMPLES: z.enum(['true', 'false', '1', '0']).default('true'),
});

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  apiKey: string | undefined;
  defaultTenantId: string;
  taskQueue: string;
  role: 'all' | 'api' | 'worker';
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  runSettings: RunSettings;
  /** Workflows a worker keeps in memory between tasks; paused runs beyond it leave the worker. */
  workerMaxCachedWorkflows: number;
  maxBodyBytes: number;
  loadExamples: boolean;
  projectRoot: string;
}

export function loadConfig(env: NodeJS.ProcessEnv, projectRoot: string): AppConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL || undefined,
    dataDir: path.resolve(projectRoot, e.DATA_DIR ?? '.data'),
    apiKey: e.API_KEY,
    defaultTenantId: e.DEFAULT_TENANT_ID,
    taskQueue: e.TASK_QUEUE,
    role: e.AGENT_CANVAS_ROLE,
    logLevel: e.LOG_LEVEL,
    runSettings: {
      maxParallel: e.RUN_MAX_PARALLEL,
      heartbeatTimeoutMs: e.ACTIVITY_HEARTBEAT_TIMEOUT_MS,
      componentTimeoutS: e.COMPONENT_EXEC_TIMEOUT,
      infraRetries: DEFAULT_RUN_SETTINGS.infraRetries,
      maxSteps: e.RUN_MAX_STEPS,
      continueAsNewAfterEvents: e.RUN_CONTINUE_AS_NEW_EVENTS,
      pauseTimeoutS: e.RUN_PAUSE_TIMEOUT ?? null,
    },
    workerMaxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    loadExamples: e.LOAD_EXAMPLES === 'true' || e.LOAD_EXAMPLES === '1',
    projectRoot,
  };
}
