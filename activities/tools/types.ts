/** What a tool executor gets and gives. */
import type { ToolInvokeResult } from '../../src/components/calls';

export interface ToolExecution {
  /** The tool's real params (secrets included), from the run's canvas version. */
  params: Record<string, unknown>;
  args: Record<string, unknown>;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  tenantId: string;
}

export type ToolExecutor = (x: ToolExecution) => Promise<Omit<ToolInvokeResult, 'elapsedMs'>>;
