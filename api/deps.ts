/**
 * What the API needs from the outside world, passed to `buildApp` so tests and `npm start` wire
 * it the same way.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from '../src/io/log';
import type { KnowledgeDeps } from '../src/io/knowledge/search';
import type { McpPolicy } from '../src/io/mcp/connect';
import type { Store } from '../src/io/store/contract';
import type { RunSettings } from '../workflows/definitions';
import type { HttpLimits } from './httpLimits';
import type { RunInputLimits } from './services/runLimits';

export interface HealthProbe {
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  (): Promise<void>;
}

export interface AppDeps {
  store: Store;
  temporal: Client;
  taskQueue: string;
  runSettings: RunSettings;
  log: Logger;
  /** Readiness of the parts /health reports (the store and Temporal are always checked). */
  probes?: Record<string, HealthProbe>;
  /** Serve the offline demo model at /demo-llm/v1 (npm start without an LLM key). */
  demoModel?: boolean;
  /** Largest accepted request body, bytes. */
  bodyLimit?: number;
  /** Timeouts, connection limits and the failed-key throttle (api/httpLimits.ts); absent: the defaults. */
  httpLimits?: HttpLimits;
  /** Size limits of what a run starts with (api/services/runLimits.ts); absent: the defaults. */
  runInputLimits?: RunInputLimits;
  /** Canvases offered by GET /api/v1/agents/templates. */
  templates?: () => Promise<Array<Record<string, unknown>>>;
  /** MCP: what operators allow (stdio commands); absent: HTTP servers only. */
  mcp?: { policy: McpPolicy };
  /** Datasets' search backend and embedding settings; absent: the store with offline embeddings. */
  knowledge?: KnowledgeDeps;
  /** The Temporal UI's base URL, for the run view's deep links (TEMPORAL_UI_URL, or the dev server's UI). */
  temporalUiUrl?: string | null;
}
