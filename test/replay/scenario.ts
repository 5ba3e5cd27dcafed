/**
 * What a recorded history scenario is (test/replay/record.ts runs them). A scenario file in
 * scenarios/ exports a default {@link ScenarioSet}: it scripts the model for its own prompts and
 * names its scenarios; each name becomes test/fixtures/histories/<name>.json.
 */
import type { Client } from '@temporalio/client';
import type { LaunchDeps } from '../../api/services/runLauncher';
import type { RunSettings } from '../../src/core/runSettings';
import type { CanvasRecord, Store } from '../../src/io/store/contract';
import type { ScriptedLlm } from '../helpers/scriptedLlm';

export interface RecordingContext {
  store: Store;
  client: Client;
  tenantId: string;
  /** The scripted OpenAI-compatible model every run calls (`{ llm_id: MODEL }`). */
  llm: ScriptedLlm;
  launch: LaunchDeps;
  /** Saves a canvas of the tenant (InvokeCanvas needs another canvas's id). */
  save(title: string, dsl: Record<string, unknown>): Promise<CanvasRecord>;
}

/** A canvas run, started the way the API starts one, then driven to its end. */
export interface CanvasScenario {
  canvas: Record<string, unknown> | ((ctx: RecordingContext) => Promise<Record<string, unknown>>);
  query?: unknown;
  settings?: Partial<RunSettings>;
  /** Cancel once the first model call is under way. */
  cancel?: boolean;
  /** Submit these through the submitInputs update once the run pauses. */
  inputs?: Record<string, unknown>;
}

/** Any other workflow: started (and driven) by the scenario itself; the driver waits for its end. */
export interface CustomScenario {
  /** `runId`: the store's run id, when the workflow has children worth recording (store.runs.children). */
  start(ctx: RecordingContext): Promise<{ workflowId: string; runId?: string }>;
}

export type Scenario = CanvasScenario | CustomScenario;

export type ScenarioSet = (ctx: RecordingContext) => Record<string, Scenario>;

export const MODEL = { llm_id: 'm@OpenAI' };
