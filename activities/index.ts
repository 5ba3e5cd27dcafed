/**
 * All activities of the worker, built from their dependencies. Workflows see only the types
 * (activities/types.ts).
 */
import type { LlmSettings } from '../src/llm/providers';
import type { Store } from '../src/store/types';
import { createLlmActivities } from './llm';
import type { Logger } from './log';
import { createRunActivities } from './runs';

export interface ActivityDeps {
  store: Store;
  llm: LlmSettings;
  log: Logger;
  heartbeatMs?: number;
  onRunFinished?: (runId: string) => void;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createLlmActivities({ store: deps.store, settings: deps.llm, log: deps.log, heartbeatMs: deps.heartbeatMs }),
    ...createRunActivities({ store: deps.store, log: deps.log, onRunFinished: deps.onRunFinished }),
  };
}
