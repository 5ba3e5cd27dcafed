/**
 * Contracts of the side-effecting calls components ask the engine to make. Components build the
 * request (pure) and read the result (pure); `activities/` (and, for sub-agents, a child
 * workflow) carry them out. Types only, so the workflow bundle never pulls in an HTTP client.
 */
import type { PathSegment } from '../dsl/jsonPath';
import type { MemoryExtractRequest, MemoryExtractResult, MemorySaveRequest, MemorySaveResult } from './memoryContracts';
import type { SpeakRequest, SpeakResult } from './speechContracts';

export type { MemoryExtractRequest, MemoryExtractResult, MemorySaveRequest, MemorySaveResult } from './memoryContracts';
export { SPEAK_MAX_CHARS, type SpeakRequest, type SpeakResult } from './speechContracts';

/** A tool call as the model wrote it (arguments are the model's raw JSON text). */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Assistant messages that called tools. */
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  /** Tool messages: the call they answer. */
  tool_call_id?: string;
}

/** OpenAI's function tool schema. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
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
  /** Set when some counts are estimates (characters ÷ 4) because the provider reported none. */
  estimated?: true;
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
  /** Tools the model may call (native function calling). */
  tools?: ToolSchema[];
  /**
   * Whether the answer may be shown while it streams, when the node renders into a Message
   * (false for internal steps, e.g. a ReAct plan in JSON). Default true.
   */
  show?: boolean;
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
  /** Tools the model asked to call (empty when it answered). */
  toolCalls: ToolCallRequest[];
}

/**
 * A tool component invoked by an activity. The activity reads the tool's real params (secrets
 * included) from the canvas version the run started from, at `paramsPath`.
 */
export interface ToolInvokeRequest {
  runId: string;
  componentName: string;
  paramsPath: PathSegment[];
  /** Arguments from the model (or, for a canvas node, from its params). */
  args: Record<string, unknown>;
  /** Called by an Agent: only what the model reads comes back (no node outputs in history). */
  asTool?: boolean;
}

export interface ToolInvokeResult {
  /** What the model reads (may hold a stored-blob marker for large results). */
  text: string;
  /** Component outputs when the tool runs as a canvas node (formalized_content, json...). */
  outputs: Record<string, unknown>;
  reference?: { chunks: Record<string, unknown>; doc_aggs: Record<string, unknown> };
  elapsedMs: number;
}

/** A tool of an MCP server the tenant registered. */
export interface McpCallRequest {
  runId: string;
  mcpId: string;
  tool: string;
  args: Record<string, unknown>;
  timeoutMs: number;
}

export interface McpCallResult {
  text: string;
  isError: boolean;
  elapsedMs: number;
}

export interface McpListRequest {
  runId: string;
  mcpId: string;
  timeoutMs: number;
}

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** An Agent called as a tool by another Agent: runs as a child workflow. */
export interface SubAgentRequest {
  parentRunId: string;
  /** `Agent:Lead-->Web_Search_Specialist`, RAGFlow's nested id. */
  componentId: string;
  /** Where the sub-agent's params sit in the stored canvas. */
  paramsPath: PathSegment[];
  params: Record<string, unknown>;
  args: Record<string, unknown>;
  globals: Record<string, unknown>;
}

export interface SubAgentResult {
  content: string;
  childTaskId: string;
  usage: TokenUsage & { calls: number };
  elapsedMs: number;
}

/** Another canvas run as a child run (InvokeCanvas, as a node or as an Agent's tool). */
export interface InvokeCanvasRequest {
  parentRunId: string;
  /** The invoking component (its node shows the child's events nested under it). */
  componentId: string;
  canvasId: string;
  query: string;
  inputs: Record<string, unknown>;
  /** Set by the engine: the slot of the parent's event log the child's events are mirrored into. */
  nest?: { runId: string; seq: number; createdAt: number; messageId: string };
}

/** Shaped like a tool result, so an Agent reads it as it reads any tool's. */
export interface InvokeCanvasResult extends ToolInvokeResult {
  taskId: string;
  usage: TokenUsage & { calls: number };
}

/** A file a run makes (DocGenerator, ExcelProcessor): the component's resolved params in, its outputs back. */
export interface FileToolRequest {
  runId: string;
  componentName: string;
  args: Record<string, unknown>;
}

export interface FileToolResult {
  outputs: Record<string, unknown>;
}

/** What a Browser step does: open a URL, follow a link of the page, type into a field, go back. */
export type BrowserAction =
  { action: 'goto'; url: string } | { action: 'click'; index: number } | { action: 'type'; index: number; text: string; submit?: boolean } | { action: 'back' };

/** One step of a Browser node in the run's browser session (kept per run by the worker, rebuilt at `url` if lost). */
export interface BrowserStepRequest {
  runId: string;
  componentId: string;
  step: number;
  /** The page the session should be on before acting (the last step's), to rebuild a lost session. */
  url: string | null;
  /** Null with `close`: only close the session. */
  act: BrowserAction | null;
  /** Close the session after this step (the node's last). */
  close?: boolean;
}

/** The page after a step, as the model reads it. */
export interface BrowserObservation {
  url: string;
  title: string;
  /** The page's text (cut to a few thousand characters). */
  text: string;
  /** Links and fields the model may act on, by index. */
  elements: Array<{ index: number; kind: 'link' | 'field' | 'button'; text: string; href?: string }>;
  /** Files the step downloaded (download infos). */
  downloads: Array<Record<string, unknown>>;
  /** What went wrong with the action (a refused navigation, an unknown index); the session goes on. */
  error?: string;
}

/** One item of a parallel Iteration: its body runs as a nested run of the engine (parallelItems.ts). */
export interface IterationItemRequest {
  iterationId: string;
  index: number;
}

export interface IterationItemResult {
  /** The item's value of each output the Iteration collects (legacy canvases: a body component's content, when it has one). */
  values: Record<string, unknown>;
  usage: TokenUsage & { calls: number };
}

/** Every call a component can ask for, keyed by what carries it out. */
export interface CallMap {
  llmChat: { request: LlmChatRequest; result: LlmChatResult };
  toolInvoke: { request: ToolInvokeRequest; result: ToolInvokeResult };
  mcpCall: { request: McpCallRequest; result: McpCallResult };
  mcpListTools: { request: McpListRequest; result: { tools: McpToolInfo[] } };
  subAgent: { request: SubAgentRequest; result: SubAgentResult };
  invokeCanvas: { request: InvokeCanvasRequest; result: InvokeCanvasResult };
  fileTool: { request: FileToolRequest; result: FileToolResult };
  browserStep: { request: BrowserStepRequest; result: BrowserObservation };
  speak: { request: SpeakRequest; result: SpeakResult };
  iterationItem: { request: IterationItemRequest; result: IterationItemResult };
  memorySave: { request: MemorySaveRequest; result: MemorySaveResult };
  memoryExtract: { request: MemoryExtractRequest; result: MemoryExtractResult };
}

export type CallName = keyof CallMap;

export type ActivityCall = {
  [K in CallName]: { activity: K; request: CallMap[K]['request'] };
}[CallName];

export type CallResultValue<K extends CallName> = CallMap[K]['result'];

/**
 * What each call needs from the engine and the workflow, declared once so neither names calls:
 * how it is carried out (an activity of that name, or a child run), whether its answer streams
 * into the run's event log, whether the child's events are mirrored into a slot of the caller's
 * log, and how its result's `usage` counts toward the node that made it.
 */
export interface CallTraits {
  /** `engine`: the run loop carries it itself, by running a nested run (a parallel Iteration's item). */
  carrier: 'activity' | 'child' | 'engine';
  /** The answer streams into a Message's slot when the node renders into one (and the request does not say `show: false`). */
  streams: boolean;
  /** The child run's events are mirrored into a slot of the caller's log (`request.nest`). */
  nests: boolean;
  /** `model`: the result's usage is one model call; `run`: a child run's usage with its own call count; `none`. */
  usage: 'model' | 'run' | 'none';
}

export const CALL_TRAITS = {
  llmChat: { carrier: 'activity', streams: true, nests: false, usage: 'model' },
  toolInvoke: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
  mcpCall: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
  mcpListTools: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
  subAgent: { carrier: 'child', streams: false, nests: false, usage: 'run' },
  invokeCanvas: { carrier: 'child', streams: false, nests: true, usage: 'run' },
  fileTool: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
  browserStep: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
  speak: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
  iterationItem: { carrier: 'engine', streams: false, nests: false, usage: 'run' },
  memorySave: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
  memoryExtract: { carrier: 'activity', streams: false, nests: false, usage: 'none' },
} as const satisfies { readonly [K in CallName]: CallTraits };

/** The calls carried out as activities of the same name. */
export type ActivityCallName = { [K in CallName]: (typeof CALL_TRAITS)[K]['carrier'] extends 'activity' ? K : never }[CallName];
