/** The cost ledger's rows and sums (src/io/store/ledger.ts). */

/** One attempt of a model call, as the ledger keeps it. */
export interface ModelCallEntry {
  /** Unique per attempt: the Temporal run, the activity and the attempt number. */
  id: string;
  tenantId: string;
  runId: string;
  /** The run a budget is counted against: the run itself, or the run a sub-agent run belongs to. */
  rootRunId: string;
  sessionId: string | null;
  canvasId: string | null;
  nodeId: string | null;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /**
   * False when the provider reported no usage: the tokens are then 0, never a character estimate —
   * except for an attempt a cancel cut off, recorded with an estimate of the prompt it sent and the
   * text it streamed (activities/meteredLlm.ts).
   */
  usageReported: boolean;
  cost: number;
  /** False when MODEL_PRICES has no price for the model (its cost is 0). */
  priced: boolean;
  attempt: number;
  retry: boolean;
  outcome: 'ok' | 'failed';
  /** When the call ended (ms). */
  time: number;
}

/** A finished call whose result a replay reused instead of calling the model again. */
export interface ModelCallReuse {
  runId: string;
  /** The engine's call id within the run (one reuse is counted once, however many replays). */
  callId: string;
  tenantId: string;
  nodeId: string | null;
  model: string;
  promptTokens: number;
  completionTokens: number;
  time: number;
}

export const USAGE_GROUPS = ['node', 'run', 'session', 'day', 'model'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** Sums over a group of ledger rows. */
export interface UsageTotals {
  calls: number;
  retries: number;
  failed_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: number;
  /** Calls of models MODEL_PRICES does not price (counted at cost 0). */
  unpriced_calls: number;
  /** Calls whose provider reported no usage (counted at 0 tokens). */
  unreported_usage_calls: number;
  /** Of the tokens above, those estimated (characters ÷ 4) for attempts a cancel cut off mid-stream: no usage came back. */
  estimated_tokens: number;
}

export interface UsageRow extends UsageTotals {
  /** The group's key: a node id, run id, session id, UTC day or model. */
  key: string | null;
}

/** What durability saved: finished calls a replay reused, with their recorded tokens. */
export interface SavedTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface UsageFilter {
  groupBy: UsageGroup;
  /** UTC days, inclusive (YYYY-MM-DD). */
  from?: string;
  to?: string;
  runId?: string;
  canvasId?: string;
}

/** Requests and tokens per provider key and clock minute, shared by every worker (PROVIDER_LIMITS). */
export interface ProviderWindows {
  /**
   * Takes one request and `tokens` in the window `minute` (ms since epoch ÷ 60,000) of `key` when
   * both still fit under the limits; false (nothing taken) when they do not.
   */
  take(key: string, minute: number, tokens: number, limits: { requests: number | null; tokens: number | null }): Promise<boolean>;
  /** Adds tokens learned after the call (its completion, the prompt's true size) to a window. */
  addTokens(key: string, minute: number, tokens: number): Promise<void>;
}

export interface Ledger {
  /** Records one attempt; recording the same attempt again changes nothing. */
  record(entry: ModelCallEntry): Promise<void>;
  /** Records a reused call once; later reports of the same call change nothing. */
  recordReuse(reuse: ModelCallReuse): Promise<boolean>;
  /** Tokens and cost spent by a run (with its sub-agent runs) and by its tenant on one UTC day. */
  spent(runRoot: string, tenantId: string, day: string): Promise<{ run: { tokens: number; cost: number }; tenantDay: { tokens: number; cost: number } }>;
  /** Provider rate windows (PROVIDER_LIMITS). */
  windows: ProviderWindows;
  /** The tenant's usage, summed per group. */
  usage(tenantId: string, filter: UsageFilter): Promise<{ rows: UsageRow[]; total: UsageTotals; saved: SavedTotals }>;
}
