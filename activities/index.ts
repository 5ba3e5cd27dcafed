/**
 * All activities of the worker, built from their dependencies. Workflows see only the types
 * (activities/types.ts).
 */
import type { LlmSettings } from '../src/llm/providers';
import type { Store } from '../src/store/types';
import { storeIndex, type ChunkIndex } from './knowledge/chunkIndex';
import { embeddingSettingsFromEnv } from './knowledge/embedder';
import { createKnowledgeActivities } from './knowledge/ingest';
import { rerankSettingsFromEnv } from './knowledge/rerank';
import type { KnowledgeDeps } from './knowledge/search';
import { createLlmActivities } from './llm';
import type { Logger } from './log';
import { createMcpActivities } from './mcp';
import type { McpPool } from './mcp/pool';
import { createRunActivities } from './runs';
import { createToolActivities } from './tools';

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

/** What Retrieval and indexing need: the store, the search backend, embedding and rerank settings. */
export function knowledgeDeps(store: Store, env: Record<string, string | undefined>, index?: ChunkIndex): KnowledgeDeps {
  return { store, index: index ?? storeIndex(store), embedding: embeddingSettingsFromEnv(env), rerank: rerankSettingsFromEnv(env) };
}

export function createActivities(deps: ActivityDeps) {
  const knowledge = knowledgeDeps(deps.store, deps.env ?? {}, deps.chunkIndex);
  return {
    ...createLlmActivities({ store: deps.store, settings: deps.llm, log: deps.log, heartbeatMs: deps.heartbeatMs }),
    ...createRunActivities({ store: deps.store, log: deps.log, onRunFinished: deps.onRunFinished }),
    ...createToolActivities({ store: deps.store, log: deps.log, env: deps.env ?? {}, knowledge }),
    ...createKnowledgeActivities({ ...knowledge, log: deps.log }),
    ...createMcpActivities({ store: deps.store, log: deps.log, env: deps.env ?? {}, pool: deps.mcpPool }),
  };
}
