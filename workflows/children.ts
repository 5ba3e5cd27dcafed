/**
 * The child workflows calls.ts starts, by signature. Declared here, not taken as `typeof` from
 * canvasRun.ts and subAgentRun.ts: those import callCarrier.ts (through workflowCarrier.ts), and the layer check
 * forbids import cycles. workflows/index.ts checks the real workflows against these signatures.
 */
import type { SubAgentRequest, SubAgentResult } from '../src/core/components/callContracts';
import type { CanvasRunInput, CanvasRunResult, RunCheckpoint, RunSettings } from './definitions';

export interface SubAgentRunInput {
  request: SubAgentRequest;
  settings: RunSettings;
  /** Carried across continue-as-new. */
  runId?: string;
  startedAt?: number;
  checkpoint?: RunCheckpoint;
}

export type CanvasRunWorkflow = (input: CanvasRunInput) => Promise<CanvasRunResult>;
export type SubAgentRunWorkflow = (input: SubAgentRunInput) => Promise<SubAgentResult>;
