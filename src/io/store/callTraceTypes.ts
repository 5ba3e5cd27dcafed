/** Model call traces: what each attempt of a model call sent and got (src/io/store/callTraces.ts). */

/** A message as the trace keeps it: long content folded, secrets redacted (src/io/llm/callTrace.ts). */
export interface TracedMessage {
  role: string;
  content: string;
  /** Characters the content had before it was folded (absent when it was kept whole). */
  folded_chars?: number;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  tool_call_id?: string;
}

export interface TracedRequest {
  messages: TracedMessage[];
  /** Generation parameters (temperature, max_tokens…), structured output, streaming. */
  params: Record<string, unknown>;
  /** Names of the tools offered to the model. */
  tools: string[];
}

export interface TracedResponse {
  content: string;
  folded_chars?: number;
  reasoning_chars: number;
  finish_reason: string | null;
  tool_calls: Array<{ id: string; name: string; arguments: string }>;
}

/**
 * What kind of model call: a chat completion (the LLM activity), or an embedding or rerank request
 * a Retrieval made (the `toolInvoke` activity; migration 20). Rows before migration 20 are `chat`.
 */
export type CallKind = 'chat' | 'embedding' | 'rerank';

/** One attempt of a model call. */
export interface CallTrace {
  /**
   * A chat attempt: the cost ledger's id (`model_calls.id`). An embedding or rerank request: the
   * activity attempt's id with the kind and the request's number in the attempt (no ledger row).
   */
  id: string;
  kind: CallKind;
  tenantId: string;
  runId: string;
  nodeId: string | null;
  /**
   * The Temporal activity id: the attempts of one call share it. An embedding or rerank request
   * adds its kind (`7:embedding`), so it is a call of its own beside the activity's others.
   */
  activityId: string;
  model: string;
  attempt: number;
  outcome: 'ok' | 'failed';
  request: TracedRequest;
  response: TracedResponse | null;
  error: string | null;
  /** ms since epoch the attempt started: its wait for provider capacity began, or (none) its request was sent. */
  startedAt: number;
  capacityWaitMs: number;
  /** From the request's send to the first streamed token or tool call; null when none came. */
  firstTokenMs: number | null;
  /** From the request's send to the end (capacity wait excluded). */
  durationMs: number;
  promptTokens: number;
  completionTokens: number;
  usageReported: boolean;
  cost: number;
  priced: boolean;
}

export interface CallTraces {
  /** Records one attempt; recording the same attempt again changes nothing. */
  record(trace: CallTrace): Promise<void>;
  /** A tenant's run's attempts in the order they started, of one node when `nodeId` is given. */
  list(tenantId: string, runId: string, nodeId?: string): Promise<CallTrace[]>;
}
