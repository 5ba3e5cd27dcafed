/** What a tool executor gets and gives. */
import type { ToolInvokeResult } from '../../core/components/callContracts';
import type { KnowledgeDeps } from '../knowledge/search';
import type { ServiceCallSink } from '../knowledge/serviceCalls';

export interface ToolExecution {
  /** The tool's real params (secrets included), from the run's canvas version. */
  params: Record<string, unknown>;
  args: Record<string, unknown>;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  tenantId: string;
  /** Datasets and their search (Retrieval; absent where no store is wired, e.g. unit tests). */
  knowledge?: KnowledgeDeps;
  /** Told of each embedding and rerank request the tool makes, for the run's call traces (absent: not traced). */
  serviceCalls?: ServiceCallSink;
}

export type ToolExecutor = (x: ToolExecution) => Promise<Omit<ToolInvokeResult, 'elapsedMs'>>;
