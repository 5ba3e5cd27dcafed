/**
 * All activities of the worker, built from their dependencies. Workflows see only the types
 * (activities/activityTypes.ts).
 */
import type { LlmSettings } from '../src/io/llm/providers';
import type { Store } from '../src/io/store/contract';
import type { ChunkIndex } from '../src/io/knowledge/chunkIndex';
import { knowledgeDeps } from '../src/io/knowledge/deps';
import { createKnowledgeActivities } from './knowledge';
import { createPipelineActivities } from './pipeline';
import { createLlmActivities } from './llm';
import type { Logger } from '../src/io/log';
import { createMcpActivities } from './mcp';
import type { McpPool } from '../src/io/mcp/pool';
import { createRunActivities } from './runs';
import { createToolActivities } from './tools';
import { createFileActivities } from './files';
import { createFormReminderActivities } from './formReminder';
import { createBrowserActivities } from './browser';
import { createSpeechActivities } from './speech';
import { createMemoryActivities } from './memory';
import { recordingCalls } from './callRecord';
import { createTravelActivities } from './travel';
import { meteredLlm } from './meteredLlm';
import { configuredSecrets } from '../src/io/llm/callTrace';
import { budgetsFromEnv } from '../src/io/llm/budgets';
import { pricesFromEnv } from '../src/io/llm/prices';
import { providerLimitsFromEnv } from '../src/io/llm/providerLimits';

export interface ActivityDeps {
  store: Store;
  llm: LlmSettings;
  log: Logger;
  heartbeatMs?: number;
  onRunFinished?: (runId: string) => void;
  /** Tool and MCP settings (TAVILY_BASE_URL, MCP_STDIO_COMMANDS...). */
  env?: Record<string, string | undefined>;
  /** MCP sessions of this process (shared with the API's tool listing). */
  mcpPool?: McpPool;
  /** The knowledge search backend; the store itself unless OpenSearch is configured. */
  chunkIndex?: ChunkIndex;
}

export function createActivities(deps: ActivityDeps) {
  const knowledge = knowledgeDeps(deps.store, deps.env ?? {}, deps.chunkIndex);
  const runs = createRunActivities({ store: deps.store, log: deps.log, onRunFinished: deps.onRunFinished });
  const env = deps.env ?? {};
  const ledger = {
    store: deps.store,
    prices: pricesFromEnv(env),
    budgets: budgetsFromEnv(env),
    log: deps.log,
    limits: providerLimitsFromEnv(env),
    defaultFactory: deps.llm.defaultFactory,
    secrets: [...configuredSecrets(deps.llm.env, env), ...(deps.llm.gatewayApiKey ? [deps.llm.gatewayApiKey] : [])],
  };
  const all = {
    ...meteredLlm(createLlmActivities({ store: deps.store, settings: deps.llm, log: deps.log, heartbeatMs: deps.heartbeatMs }), ledger),
    ...runs,
    ...createToolActivities({ store: deps.store, log: deps.log, env: deps.env ?? {}, knowledge, secrets: ledger.secrets }),
    ...createKnowledgeActivities({ ...knowledge, log: deps.log }),
    // The worker's settings (VISION_MODEL, ASR_MODEL) read before the model settings' own environment, as speech reads TTS_MODEL.
    ...createPipelineActivities({ ...knowledge, log: deps.log, llm: { ...deps.llm, env: { ...deps.llm.env, ...deps.env } } }),
    ...createMcpActivities({ store: deps.store, log: deps.log, env: deps.env ?? {}, pool: deps.mcpPool }),
    ...createFileActivities({ store: deps.store, log: deps.log }),
    ...createFormReminderActivities({ store: deps.store, env }),
    ...createBrowserActivities({ store: deps.store, log: deps.log, env: deps.env ?? {} }),
    ...createTravelActivities({ store: deps.store, llm: deps.llm }),
    ...createSpeechActivities({ store: deps.store, settings: deps.llm, log: deps.log, env: deps.env ?? {} }),
    ...createMemoryActivities({ store: deps.store, llm: deps.llm, embedding: knowledge.embedding, index: knowledge.index, log: deps.log }),
  };
  return recordingCalls(all, (input) => runs.appendRunEvents(input));
}
