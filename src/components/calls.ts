/**
 * Contracts of the side-effecting calls components ask the engine to make. Components build the
 * request (pure) and read the result (pure); `activities/` carries them out. Types only, so the
 * workflow bundle never pulls in an HTTP client.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** Generation parameters sent to the model (RAGFlow's `gen_conf`). */
export interface GenConf {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Where streamed tokens go: the run's event log, at a slot the engine reserved. */
export interface StreamTarget {
  runId: string;
  messageId: string;
  /** Event sequence number reserved for this stream; tokens are stored as (seq, 1..n). */
  seq: number;
  /** The component whose output is streamed (for the retry notice). */
  componentId: string;
  /** The run's event timestamp (unix seconds), as on every event of the run. */
  createdAt: number;
}

export interface LlmChatRequest {
  /** `model@Factory`, a bare model name, or "" for the tenant default. */
  llmId: string;
  messages: ChatMessage[];
  gen: GenConf;
  /** Ask for a JSON object answer (structured output). */
  json?: boolean;
  /** Set by the engine when the answer streams into a Message. */
  stream?: StreamTarget;
}

export interface LlmChatResult {
  content: string;
  /** Reasoning text (`reasoning_content` or `<think>` blocks), kept apart from the answer. */
  reasoning: string;
  usage: TokenUsage;
  model: string;
  finishReason: string | null;
}

/** Every call a component can ask for, keyed by activity name. */
export interface CallMap {
  llmChat: { request: LlmChatRequest; result: LlmChatResult };
}

export type CallName = keyof CallMap;

export type ActivityCall = {
  [K in CallName]: { activity: K; request: CallMap[K]['request'] };
}[CallName];

export type CallResultValue<K extends CallName> = CallMap[K]['result'];
