/**
 * All activities of the worker, built from their dependencies. Workflows see only the types
 * (activities/types.ts).
 */
import type { LlmSettings } from '../src/llm/providers';
import type { Store } from '../src/store/types';
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
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createLlmActivities({ store: deps.store, settings: deps.llm, log: deps.log, heartbeatMs: deps.heartbeatMs }),
    ...createRunActivities({ store: deps.store, log: deps.log, onRunFinished: deps.onRunFinished }),
    ...createToolActivities({ store: deps.store, log: deps.log, env: deps.env ?? {} }),
    ...createMcpActivities({ store: deps.store, log: deps.log, env: deps.env ?? {}, pool: deps.mcpPool }),
  };
}
